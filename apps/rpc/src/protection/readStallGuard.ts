import { BaseError } from '@uncle-rpc/errors'
import { createTimerList } from '@uncle-rpc/process'
import { type Breaker, createBreaker } from './breaker.js'

// Guards of the method's database reads: a deadline that tells a stalled database from a busy
// pool, and a breaker that stops asking a failing one.

/** A database read missed its deadline (the read itself goes on; its result is dropped). */
export class DeadlineExceededError extends BaseError {
  constructor(ms: number) {
    super(`database read missed its deadline (${ms} ms without progress)`, { name: 'DeadlineExceededError' })
  }
}

/** Deadlines for database reads that tell a stalled database from a busy pool. */
export type Deadline = <T>(read: Promise<T>) => Promise<T>

/**
 * A read fails with DeadlineExceededError once the database has completed no read (of any
 * caller) for `ms` while it waited, or after `4 × ms` in all. Note: a plain per-read timer would
 * fail the tail of a large cold batch that is merely queued for a pool connection while every
 * other read succeeds; a stalled or cut database completes nothing and fails within `ms`.
 * The reads waiting share one timer (createTimerList): they are in start order, which is also
 * the order of their due times, and progress only moves those later.
 */
export function createDeadline(ms: number): Deadline {
  let lastProgress = 0
  const waiting = createTimerList<{ started: number; reject: (error: unknown) => void }>({
    dueOf: (read) => Math.min(Math.max(read.started, lastProgress) + ms, read.started + 4 * ms),
    expire: (read) => read.reject(new DeadlineExceededError(ms)),
  })
  return <T>(read: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const entry = waiting.add({ started: performance.now(), reject })
      read.then(
        (value) => {
          lastProgress = performance.now()
          waiting.remove(entry)
          resolve(value)
        },
        (error: unknown) => {
          waiting.remove(entry)
          reject(error)
        },
      )
    })
}

/** Reads paused: the database failed repeatedly and is not asked until the next probe. */
export class ReadsPausedError extends BaseError {
  constructor(cooldownMs: number) {
    super(`database reads paused after repeated failures (one probe every ${cooldownMs} ms)`, { name: 'ReadsPausedError' })
  }
}

/** How long reads pause after repeated failures: max(1 s, 4 × the deadline). */
export const readPauseMs = (deadlineMs: number) => Math.max(1000, 4 * deadlineMs)

/**
 * A circuit breaker in front of the database reads of the methods (breaker.ts), that tells a
 * read's failure from a stale one: ask `admit()`, take `resumed` as the read starts, and report
 * its outcome with `succeeded()` or `failed(resumed)`.
 */
export type ReadGate = Pick<Breaker, 'admit' | 'succeeded' | 'state'> & {
  /** How many times reads resumed after a pause (its cooldown ended, or a read succeeded while it paused). */
  readonly resumed: number
  /** A read begun at `resumed` failed or missed its deadline; it counts only if no resumption came since. */
  failed(resumedWhenStarted: number): void
}

/**
 * After `failureThreshold` consecutive failed or late reads, no read starts for `cooldownMs`; then
 * one probe goes, and its outcome closes or re-opens the gate. Note: without it, a stalled
 * database (connections hung, not refused) would collect every request's query in the pool's
 * queue for as long as it stalls; with it, the queue holds about one cooldown's worth. A failure
 * of a read begun before the pause last ended (one held on a dead server's connection or queued
 * for one, cut only after a failover) says nothing about the database answering now: it does
 * not count, so it neither re-opens the gate nor fails the probe (its request still fails).
 */
export function createReadGate({ failureThreshold = 5, cooldownMs = 1000 }: { failureThreshold?: number; cooldownMs?: number } = {}): ReadGate {
  let resumed = 0
  const breaker = createBreaker({
    failureThreshold,
    cooldownMs,
    onChange: ({ from, to }) => {
      if (from === 'open' || to === 'closed') resumed++
    },
  })
  return {
    admit: () => breaker.admit(),
    succeeded: () => breaker.succeeded(),
    failed(resumedWhenStarted) {
      if (resumedWhenStarted === resumed) breaker.failed()
    },
    get state() {
      return breaker.state
    },
    get resumed() {
      return resumed
    },
  }
}
