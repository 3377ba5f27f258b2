import type { Logger } from '@uncle-rpc/config'

// Whether the rate limiter's Redis answers, and when to ask it again after it did not.

export type RedisHealth = {
  /** Failing open and the back-off not over: answer from per-process limits without asking Redis. */
  backingOff(now: number): boolean
  /** Failing open (Redis failed and has not answered since). */
  readonly isDown: boolean
  /** A call failed (or the connection did): fail open, back off (doubling), log at most every logEveryMs. */
  down(error: unknown): void
  /** A call succeeded: shared limits again, back-off reset. */
  up(): void
  /** A new connection (Redis back, or a replica promoted by Sentinel): the next request asks Redis. */
  retryNow(): void
  /** One request decided by the per-process fallback (reported in the log lines). */
  countFallback(): void
}

export type RedisHealthParameters = { backoffMs: number; maxBackoffMs: number; logEveryMs: number }

/** Invariant: `downSince` > 0 exactly while failing open; Redis is not asked before `retryAt`. */
export function createRedisHealth(logger: Logger, { backoffMs, maxBackoffMs, logEveryMs }: RedisHealthParameters): RedisHealth {
  let downSince = 0
  let retryAt = 0
  let backoff = backoffMs
  let lastLog = 0
  let fallbackRequests = 0
  return {
    backingOff: (now) => downSince !== 0 && now < retryAt,
    get isDown() {
      return downSince !== 0
    },
    down(error) {
      const now = Date.now()
      retryAt = now + backoff
      backoff = Math.min(backoff * 2, maxBackoffMs)
      if (downSince === 0 || now - lastLog >= logEveryMs) {
        logger.error({
          msg:
            downSince === 0
              ? 'rate limiting: Redis unreachable; failing open to per-process per-second limits (daily limits not enforced)'
              : 'rate limiting: Redis still unreachable; per-process limits in force',
          error: (error as Error).message,
          requests_in_fallback: fallbackRequests,
        })
        lastLog = now
      }
      if (downSince === 0) downSince = now
    },
    up() {
      if (downSince !== 0) {
        logger.warn({ msg: 'rate limiting: Redis reachable again; shared limits restored', down_ms: Date.now() - downSince, requests_in_fallback: fallbackRequests })
        downSince = 0
        fallbackRequests = 0
      }
      backoff = backoffMs
    },
    retryNow() {
      retryAt = 0
    },
    countFallback() {
      fallbackRequests++
    },
  }
}
