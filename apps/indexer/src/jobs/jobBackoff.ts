// The job layer is the one owner of retries (docs/indexer.md, "Retries"): a failed attempt waits
// this long, and attempts are unbounded, so an outage of any length leaves no range behind.

/** The backoff of every indexer job (BullMQ calls the worker's strategy, jobBackoffMs, for this type). */
export const jobBackoff = { type: 'capped' } as const

/**
 * The wait before the attempt after `attemptsMade`: 1 s, 2 s, 4 s … doubling to at most 30 s, so
 * a node or database that is back is used again within 30 s.
 */
export function jobBackoffMs(attemptsMade: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.min(Math.max(attemptsMade - 1, 0), 5))
}
