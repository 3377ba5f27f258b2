import { NonRetryableError } from '@uncle-rpc/errors'
import type { Logger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { type ConnectionOptions, type Job, UnrecoverableError, Worker } from 'bullmq'
import { SourceMissingError, verificationFailure } from '../errors.js'
import { jobBackoffMs } from '../jobs/jobBackoff.js'
import { type IndexEpochDeps, indexEpoch } from '../era1/indexEpoch.js'
import { type IndexRangeResult, indexRange } from '../nodeSource/indexRange.js'
import { decodeEpochJob, decodeRangeJob, epochJobName } from '../jobs/jobs.js'
import type { IndexerMetrics } from '../metrics.js'
import type { ChainTarget } from '../writing/linkage.js'
import type { Progress } from '../progress.js'
import type { Upstream } from '../upstream/createUpstream.js'

export type JobWorkerOptions = {
  network: string
  /** The queue to take jobs from (range jobs and epoch jobs have one each). */
  queue: string
  /** Where reorg handling may walk and how loudly it reports. */
  target: ChainTarget
  /** Range jobs processed at once by this process. */
  concurrency: number
  /** Attempts for a range whose blocks fail verification (a node may serve a bad answer once). */
  verificationAttempts: number
  /** How long a job stays locked without renewal before another worker may take it over. */
  lockDurationMs: number
}

export type JobWorkerDeps = {
  connection: ConnectionOptions
  prefix: string
  db: Db
  /** The network's node; undefined when era1 files are its only source. */
  upstream: Upstream | undefined
  /** The network's era1 files; undefined without an era1 source. */
  era1: Omit<IndexEpochDeps, 'db' | 'logger'> | undefined
  logger: Logger
  progress: Progress
  /** Absent: metrics off. */
  metrics?: IndexerMetrics | undefined
}

/** BullMQ's mark of a job not to retry, with the error's message and the error itself as its cause. */
function unrecoverable(error: Error): UnrecoverableError {
  const marked = new UnrecoverableError(error.message)
  marked.cause = error
  return marked
}

/**
 * The BullMQ worker of one network: runs range jobs through {@link indexRange} and epoch jobs
 * through {@link indexEpoch}, and decides which failures are worth BullMQ's retries: a
 * NonRetryableError fails the job at once, blocks failing verification get
 * `verificationAttempts`, anything else the queue's attempts. Only this file turns errors into
 * UnrecoverableError.
 */
export function createJobWorker(deps: JobWorkerDeps, options: JobWorkerOptions): Worker {
  const logger = deps.logger.child({ network: options.network })
  const processor = async (job: Job): Promise<IndexRangeResult> => {
    const started = performance.now()
    try {
      let result: IndexRangeResult
      if (job.name === epochJobName) {
        if (!deps.era1) throw new SourceMissingError(`${options.network}: an era1 job, but the network has no era1 source now`)
        result = await indexEpoch({ db: deps.db, logger, ...deps.era1 }, decodeEpochJob(job.data))
      } else {
        if (!deps.upstream) throw new SourceMissingError(`${options.network}: a range job, but the network has no rpcUrl now`)
        result = await indexRange({ db: deps.db, upstream: deps.upstream, logger, target: options.target }, decodeRangeJob(job.data))
      }
      deps.progress.recordRange(options.network, { ...result, ms: performance.now() - started, source: job.name === epochJobName ? 'era1' : 'rpc' })
      return result
    } catch (error) {
      const failedVerification = verificationFailure(error)
      if (failedVerification !== undefined) deps.metrics?.verificationFailed(options.network)
      if (error instanceof NonRetryableError) {
        // Note: the same work meets the same failure again (a good era1 copy is picked up by a later run).
        const msg = failedVerification === 'era1 file' ? 'era1 file refused: failed verification' : 'job refused, not retried'
        logger.error({ msg, job_id: job.id, error })
        throw unrecoverable(error)
      }
      if (failedVerification === 'blocks') {
        const attempt = job.attemptsMade + 1
        logger.error({ msg: 'blocks refused: failed verification', job_id: job.id, attempt, error })
        if (attempt >= options.verificationAttempts) throw unrecoverable(error as Error)
      } else {
        logger.warn({ msg: 'range failed, will retry', job_id: job.id, error })
      }
      throw error
    }
  }
  const worker = new Worker(options.queue, processor, {
    connection: deps.connection,
    prefix: deps.prefix,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: Math.min(30_000, options.lockDurationMs),
    // A job whose worker died is re-run; a range write is idempotent, so this is safe.
    maxStalledCount: 100,
    settings: { backoffStrategy: jobBackoffMs },
  })
  worker.on('error', (error) => logger.error({ msg: 'worker error', error }))
  // Note: 'failed' comes after every failed attempt; only the last one (or a refusal) counts.
  worker.on('failed', (job, error) => {
    if (job !== undefined && (error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1))) deps.metrics?.jobFailed(options.network)
  })
  return worker
}
