/** How the indexer runs (flags of `uncle-rpc indexer`); the same for every network. */
export type IndexerOptions = {
  rangeSize: number
  concurrency: number
  batchSize: number
  maxInFlight: number
  lockDurationMs: number
  planIntervalMs: number
  progressIntervalMs: number
  verificationAttempts: number
  /** How often a live network's head is polled (newHeads, over ws(s)://, wakes it sooner). */
  pollIntervalMs: number
  /** Lease of the tip follower in Redis; another process takes over within about this long. */
  tipLockTtlMs: number
  /** Most blocks per step of the tip follower. */
  tipBatch: number
  /** Resolve `run()` once every network with a `toBlock` is fully indexed. */
  exitWhenDone: boolean
}

export const defaultIndexerOptions: IndexerOptions = {
  rangeSize: 500,
  concurrency: 4,
  batchSize: 100,
  maxInFlight: 4,
  lockDurationMs: 30_000,
  planIntervalMs: 5_000,
  progressIntervalMs: 10_000,
  verificationAttempts: 3,
  pollIntervalMs: 1_000,
  tipLockTtlMs: 10_000,
  tipBatch: 100,
  exitWhenDone: false,
}
