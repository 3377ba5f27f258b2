import type { Logger, NetworkConfig } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { type ConnectionOptions, Queue, type Worker } from 'bullmq'
import type { Era1Files } from '../era1/era1Files.js'
import { jobBackoff } from '../jobs/jobBackoff.js'
import { era1QueueName, queueName } from '../jobs/jobs.js'
import { createJobWorker } from './jobWorker.js'
import type { IndexerMetrics } from '../metrics.js'
import type { IndexerOptions } from '../options.js'
import type { Progress } from '../progress.js'
import type { Upstream } from '../upstream/createUpstream.js'
import type { ChainTarget } from '../writing/linkage.js'

export type JobQueuesDeps = {
  db: Db
  /** Redis for the BullMQ workers (commands wait through a reconnect). */
  connection: ConnectionOptions
  /** Redis for the queues this process adds jobs to and reads (commands fail at once while disconnected). */
  queueConnection: ConnectionOptions
  prefix: string
  logger: Logger
  progress: Progress
  /** Absent: metrics off. */
  metrics?: IndexerMetrics | undefined
}

/** A network's queues and the workers that take their jobs. */
export type JobQueues = {
  /** The node's range jobs (made even without an rpcUrl: planning reads it). */
  rangeQueue: Queue
  /** The era1 epoch jobs; undefined without era1 files. */
  era1Queue: Queue | undefined
  /** Each worker with the queue it takes from. */
  workers: { worker: Worker; queue: Queue }[]
  /** Closes the workers (waiting for the jobs in flight), then the queues. */
  close(): Promise<void>
}

/**
 * Opens a network's job queues and starts their workers: range jobs with a node, epoch jobs with
 * era1 files, each queue with its own concurrency. Every job gets the queue's attempts and the
 * capped backoff (the job layer owns retries).
 */
export function startJobQueues(
  deps: JobQueuesDeps,
  config: NetworkConfig,
  options: IndexerOptions,
  sources: { upstream: Upstream | undefined; era1: Era1Files | undefined; target: ChainTarget },
): JobQueues {
  const logger = deps.logger.child({ network: config.name })
  const newQueue = (name: string) => {
    const queue = new Queue(name, {
      connection: deps.queueConnection,
      prefix: deps.prefix,
      defaultJobOptions: {
        attempts: options.jobAttempts,
        backoff: jobBackoff,
        removeOnComplete: { count: 1_000 },
        removeOnFail: false,
      },
    })
    // Note: without a listener BullMQ prints connection errors to stderr as raw stacks.
    queue.on('error', (error) => logger.warn({ msg: 'queue connection error (Redis)', error: error.message }))
    return queue
  }
  const workerDeps = { ...deps, upstream: sources.upstream, era1: sources.era1 }
  const workerOptions = {
    network: config.name,
    target: sources.target,
    verificationAttempts: options.verificationAttempts,
    lockDurationMs: options.lockDurationMs,
  }
  const rangeQueue = newQueue(queueName(config.name))
  const workers: JobQueues['workers'] = []
  if (sources.upstream)
    workers.push({ worker: createJobWorker(workerDeps, { ...workerOptions, queue: queueName(config.name), concurrency: options.concurrency }), queue: rangeQueue })
  // Note: a queue of its own, so epoch files (megabytes each, held in memory) run a few at a time.
  const era1Queue = sources.era1 ? newQueue(era1QueueName(config.name)) : undefined
  if (era1Queue)
    workers.push({ worker: createJobWorker(workerDeps, { ...workerOptions, queue: era1QueueName(config.name), concurrency: options.era1Concurrency }), queue: era1Queue })
  return {
    rangeQueue,
    era1Queue,
    workers,
    async close() {
      // Note: Worker.close() waits for in-flight jobs to finish, so no range is left half-done.
      await Promise.all(workers.map(({ worker }) => worker.close()))
      await Promise.all([rangeQueue.close(), era1Queue?.close()])
    },
  }
}
