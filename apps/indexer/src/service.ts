import { BaseError } from '@uncle-rpc/chain'
import type { Logger, NetworkConfig } from '@uncle-rpc/config'
import { compactIndexedRanges, type Db, listIndexedRanges, registerNetwork } from '@uncle-rpc/db'
import { type ConnectionOptions, Queue, type Worker } from 'bullmq'
import { encodeRangeJob, queueName, rangeJobId, rangeJobName } from './jobs.js'
import { planRanges } from './planRanges.js'
import { createProgress, formatEta } from './progress.js'
import { createUpstream, type Upstream } from './upstream/createUpstream.js'
import { createRangeWorker } from './worker.js'

/** The node behind a network serves another chain than the config says: nothing is written. */
export class ChainIdMismatchError extends BaseError {
  constructor(network: string, expected: number, got: bigint, where: string) {
    super(`network "${network}": ${where} reports chainId ${got}, but the config says ${expected}; refusing to index it`, {
      name: 'ChainIdMismatchError',
    })
  }
}

export type IndexerOptions = {
  rangeSize: number
  concurrency: number
  batchSize: number
  maxInFlight: number
  lockDurationMs: number
  planIntervalMs: number
  progressIntervalMs: number
  verificationAttempts: number
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
  exitWhenDone: false,
}

export type IndexerDeps = { db: Db; connection: ConnectionOptions; prefix: string; logger: Logger }

type NetworkRuntime = { config: NetworkConfig; upstream: Upstream; queue: Queue; worker: Worker; done: boolean }

/**
 * Checks each network's node (chainId) and the database's record of it before anything is
 * written; then plans range jobs, runs the workers and logs progress until `stop()`.
 */
export async function startIndexer(deps: IndexerDeps, networks: readonly NetworkConfig[], options: IndexerOptions) {
  const progress = createProgress()
  const runtimes: NetworkRuntime[] = []

  const checked: { config: NetworkConfig; upstream: Upstream }[] = []
  for (const config of networks) {
    const upstream = createUpstream({
      url: config.rpcUrl,
      batchSize: options.batchSize,
      maxInFlight: options.maxInFlight,
      onRetry: (info) => deps.logger.warn({ msg: 'upstream retry', network: config.name, ...info }),
    })
    const chainId = await upstream.chainId()
    if (chainId !== BigInt(config.chainId)) throw new ChainIdMismatchError(config.name, config.chainId, chainId, 'the node')
    const registered = await registerNetwork(deps.db, { name: config.name, chainId: BigInt(config.chainId) })
    if (registered.chainId !== BigInt(config.chainId))
      throw new ChainIdMismatchError(config.name, config.chainId, registered.chainId, 'the database')
    checked.push({ config, upstream })
  }
  for (const { config, upstream } of checked) {
    const queue = new Queue(queueName(config.name), {
      connection: deps.connection,
      prefix: deps.prefix,
      defaultJobOptions: {
        attempts: 10,
        backoff: { type: 'exponential', delay: 1_000 },
        removeOnComplete: { count: 1_000 },
        removeOnFail: false,
      },
    })
    const worker = createRangeWorker(
      { connection: deps.connection, prefix: deps.prefix, db: deps.db, upstream, logger: deps.logger, progress },
      {
        network: config.name,
        concurrency: options.concurrency,
        verificationAttempts: options.verificationAttempts,
        lockDurationMs: options.lockDurationMs,
      },
    )
    runtimes.push({ config, upstream, queue, worker, done: false })
  }

  async function target(rt: NetworkRuntime): Promise<bigint> {
    if (rt.config.toBlock !== undefined) return BigInt(rt.config.toBlock)
    return (await rt.upstream.blockNumber()) - BigInt(rt.config.confirmations)
  }

  async function plan(rt: NetworkRuntime): Promise<{ target: bigint; indexedHeight: bigint; remaining: bigint }> {
    const to = await target(rt)
    const from = BigInt(rt.config.fromBlock)
    let indexed = await listIndexedRanges(deps.db, { network: rt.config.name })
    // Every finished job adds a row; merge them now and then so planning stays cheap.
    if (indexed.length > 64) {
      await compactIndexedRanges(deps.db, { network: rt.config.name })
      indexed = await listIndexedRanges(deps.db, { network: rt.config.name })
    }
    const ranges = planRanges({ from, to, indexed, rangeSize: BigInt(options.rangeSize) })
    if (ranges.length > 0)
      await rt.queue.addBulk(
        ranges.map((r) => {
          const job = { network: rt.config.name, ...r }
          return { name: rangeJobName, data: encodeRangeJob(job), opts: { jobId: rangeJobId(job) } }
        }),
      )
    const firstGap = ranges[0]?.from
    const indexedHeight = firstGap === undefined ? to : firstGap - 1n
    const remaining = ranges.reduce((sum, r) => sum + (r.to - r.from + 1n), 0n)
    rt.done = rt.config.toBlock !== undefined && remaining === 0n
    return { target: to, indexedHeight, remaining }
  }

  let stopping = false
  let resolveDone: () => void = () => {}
  const allDone = new Promise<void>((resolve) => {
    resolveDone = resolve
  })
  const lastPlan = new Map<string, Awaited<ReturnType<typeof plan>>>()

  const planLoop = async () => {
    for (const rt of runtimes) {
      try {
        lastPlan.set(rt.config.name, await plan(rt))
      } catch (error) {
        deps.logger.warn({
          msg: 'planning failed; will retry',
          network: rt.config.name,
          error: error instanceof Error ? error.message : String(error),
        })
      }
    }
    if (options.exitWhenDone && runtimes.every((rt) => rt.done)) resolveDone()
  }
  await planLoop()
  // Re-plan as soon as a queue runs dry: finishes (and follows the head) without waiting a tick.
  for (const rt of runtimes) rt.worker.on('drained', () => void planLoop())
  const planTimer = setInterval(() => void planLoop(), options.planIntervalMs)
  const progressTimer = setInterval(() => {
    for (const rt of runtimes) {
      const p = progress.get(rt.config.name)
      const rate = progress.takeRate(rt.config.name)
      const last = lastPlan.get(rt.config.name)
      deps.logger.info({
        msg: 'progress',
        network: rt.config.name,
        blocks_per_s: Math.round(rate),
        blocks_indexed: p.blocks,
        uncles_found: p.uncles,
        indexed_height: last?.indexedHeight.toString(),
        target: last?.target.toString(),
        eta: last ? formatEta(last.remaining, rate) : 'unknown',
        upstream_window: rt.upstream.governor.limit,
      })
    }
  }, options.progressIntervalMs)

  return {
    /** Resolves when every bounded network is complete (only with `exitWhenDone`). */
    done: allDone,
    async stop() {
      if (stopping) return
      stopping = true
      clearInterval(planTimer)
      clearInterval(progressTimer)
      // Note: Worker.close() waits for in-flight jobs to finish, so no range is left half-done.
      await Promise.all(runtimes.map((rt) => rt.worker.close()))
      await Promise.all(runtimes.map((rt) => rt.queue.close()))
    },
  }
}
