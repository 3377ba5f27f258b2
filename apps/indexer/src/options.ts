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
  /**
   * BullMQ attempts of a job (backoff 1 s doubling to 30 s; worker.ts). The job layer is the one
   * owner of retries, so a transient failure of any length is outlived: unbounded by default.
   */
  jobAttempts: number
  /** era1 epoch jobs processed at once per network (each holds its file in memory). */
  era1Concurrency: number
  /** Threads that verify era1 files beside the writes (0: on the main thread). */
  era1VerifyThreads: number
  /** Keep era1 files downloaded from a mirror after indexing them. */
  keepEra1: boolean
}

export const defaultIndexerOptions: IndexerOptions = {
  rangeSize: 2_000,
  concurrency: 4,
  batchSize: 500,
  maxInFlight: 4,
  lockDurationMs: 30_000,
  planIntervalMs: 5_000,
  progressIntervalMs: 10_000,
  verificationAttempts: 3,
  pollIntervalMs: 1_000,
  tipLockTtlMs: 10_000,
  tipBatch: 100,
  exitWhenDone: false,
  jobAttempts: Number.MAX_SAFE_INTEGER,
  era1Concurrency: 2,
  era1VerifyThreads: 1,
  keepEra1: false,
}
