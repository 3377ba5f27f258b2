import type { RateLimitReply } from './rateLimitScript.js'

// A rate-limit call carries a deadline in Redis's clock, so that a call run late (a frozen Redis
// that resumes runs what was sent to it meanwhile) takes nothing. The offset between the clocks is
// learnt from the replies.

export type RedisClock = {
  /** Learns from a reply to a call sent at `sentAt` (our ms). */
  note(reply: RateLimitReply, sentAt: number): void
  /** The deadline, in Redis's ms, for a call sent at `sentAt`: half the command timeout later. */
  deadlineFor(sentAt: number): number
}

/**
 * Redis's clock minus ours (ms), as the smallest `Redis time at run − our time at send` seen
 * lately (an upper bound of the true offset; the smallest has the least delay in it).
 */
export function createRedisClock(commandTimeoutMs: number): RedisClock {
  let offsetMs = 0
  let seenAt = 0
  return {
    note(reply, sentAt) {
      const sample = reply.second * 1000 + (1000 - reply.msLeftInSecond) - sentAt
      if (sample < offsetMs || Date.now() - seenAt > 10_000) {
        offsetMs = sample
        seenAt = Date.now()
      }
    },
    deadlineFor: (sentAt) => Math.round(sentAt + offsetMs + commandTimeoutMs / 2),
  }
}
