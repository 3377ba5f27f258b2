import { createRedisClient, type Logger, type NetworkConfig, producerTuning, type RedisTarget, warnUnlessNoEviction, workerTuning } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { getDatabaseIdentity, registerNetwork } from '@uncle-rpc/db/chain'
import type { BaseError } from '@uncle-rpc/errors'
import { bullmqConnection } from './bullmqConnection.js'
import { ChainIdMismatchError } from './errors.js'
import type { IndexerMetrics } from './metrics.js'
import { type NetworkRunner, startNetworkRunner } from './network/networkRunner.js'
import { createProbe, probeChainId } from './network/probe.js'
import type { IndexerOptions } from './options.js'
import { createProgress, formatEta } from './progress.js'
import { createQueueOwner } from './planning/queueOwner.js'

export type IndexerDeps = {
  db: Db
  /** Redis (REDIS_URL) for the job queues, the head lease and the queue owner record. */
  redis: RedisTarget
  prefix: string
  logger: Logger
  /** Prometheus metrics (metrics.ts); absent = off. */
  metrics?: IndexerMetrics | undefined
}

export type Indexer = {
  /**
   * Resolves when every bounded network is complete (only with `exitWhenDone`); rejects with a
   * configuration error found after start (a node that came up serving another chain).
   */
  done: Promise<void>
  stop(): Promise<void>
}

/**
 * Asks every network's node for its chain id first: a node serving another chain (or a database
 * that recorded another) is refused before anything is written. A node that does not answer
 * does not hold the others up: that network keeps retrying in the background. Then each network
 * runs on its own (range jobs, planning, head following) until `stop()`.
 */
export async function startIndexer(
  deps: IndexerDeps,
  networks: readonly NetworkConfig[],
  options: IndexerOptions,
): Promise<Indexer> {
  const progress = deps.metrics?.countProgress(createProgress()) ?? createProgress()
  const probes = await Promise.all(
    networks.map(async (config) => {
      const rpcUrl = config.rpcUrl
      if (rpcUrl === undefined) return 'ok' as const
      const probe = createProbe({ ...config, rpcUrl })
      try {
        return await probeChainId(config, probe)
      } finally {
        await probe.close()
      }
    }),
  )
  for (const [i, config] of networks.entries()) {
    const outcome = probes[i]
    if (outcome !== 'ok') {
      deps.logger.warn({ msg: 'node unreachable at start; retrying in the background', network: config.name, error: outcome?.unreachable })
      continue
    }
    const registered = await registerNetwork(deps.db, { name: config.name, chainId: BigInt(config.chainId) })
    if (registered.mismatch) throw new ChainIdMismatchError(config.name, config.chainId, registered.mismatch.stored, 'the database')
  }

  // Workers wait through a Redis failover; producers (planning, metrics) fail fast and retry on their own.
  const connection = bullmqConnection(deps.redis, workerTuning)
  const queueConnection = bullmqConnection(deps.redis, producerTuning)
  // Note: a command unanswered for 5 s fails (a cut-off server never answers), so taking the tip
  // lease is tried again rather than waited on forever.
  const redis = createRedisClient(deps.redis, { maxRetriesPerRequest: 2, commandTimeout: 5_000 })
  redis.on('error', (error) => deps.logger.debug({ msg: 'redis (tip lease) connection error', error: error.message }))
  warnUnlessNoEviction(redis, deps.logger)
  const owner = createQueueOwner(redis, deps.prefix, () => getDatabaseIdentity(deps.db), deps.logger)
  // Note: at start, so a queue left from an earlier database is cleared (and said) before any
  // planning; when Redis cannot be asked yet, the first planning pass that can does it.
  await owner.check().catch((error: unknown) =>
    deps.logger.warn({ msg: 'could not check whose job queues these are yet (Redis or Postgres); will retry when planning', error: (error as Error).message }),
  )
  let resolveDone: () => void = () => {}
  let rejectDone: (error: BaseError) => void = () => {}
  const done = new Promise<void>((resolve, reject) => {
    resolveDone = resolve
    rejectDone = reject
  })
  const runners: NetworkRunner[] = []
  const hooks = {
    onFatal: (error: BaseError) => {
      deps.logger.error({ msg: 'configuration error; stopping', error: error.message })
      rejectDone(error)
    },
    onPlanned: () => {
      if (options.exitWhenDone && runners.length === networks.length && runners.every((r) => r.done)) resolveDone()
    },
  }
  for (const [i, config] of networks.entries())
    runners.push(
      startNetworkRunner(
        { db: deps.db, connection, queueConnection, prefix: deps.prefix, logger: deps.logger, progress, redis, owner, metrics: deps.metrics },
        config,
        options,
        hooks,
        probes[i] === 'ok' ? 'checked' : 'unchecked',
      ),
    )

  const watched = deps.metrics?.watch({
    db: deps.db,
    connection: queueConnection,
    prefix: deps.prefix,
    networks: () => runners.map((r) => ({ name: r.config.name, fromBlock: r.config.fromBlock, toBlock: r.config.toBlock, planned: r.lastPlan?.target })),
  })
  const progressTimer = setInterval(() => {
    for (const runner of runners) {
      const name = runner.config.name
      const p = progress.get(name)
      const rate = progress.takeRate(name)
      const last = runner.lastPlan
      deps.logger.info({
        msg: 'progress',
        network: name,
        state: runner.state,
        blocks_per_s: Math.round(rate),
        // Note: what this process stored; blocks fetched again (another writer stored them first) are blocks_fetched.
        blocks_indexed: p.written,
        uncles_found: p.unclesWritten,
        blocks_fetched: p.blocks,
        indexed_height: last?.indexedHeight.toString(),
        target: last?.target.toString(),
        eta: last ? formatEta(last.remaining, rate) : 'unknown',
        upstream_window: runner.upstreamWindow,
      })
    }
  }, options.progressIntervalMs)

  let stopping: Promise<void> | undefined
  return {
    done,
    stop() {
      stopping ??= (async () => {
        clearInterval(progressTimer)
        await Promise.all(runners.map((r) => r.stop()))
        for (const runner of runners) {
          const p = progress.get(runner.config.name)
          deps.logger.info({
            msg: 'indexer stopped',
            network: runner.config.name,
            blocks_indexed: p.written,
            blocks_written: p.written,
            uncles_found: p.unclesWritten,
            blocks_fetched: p.blocks,
            // Note: resident-set high-water mark of the whole process (the verification thread included).
            peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
          })
        }
        await watched?.close()
        redis.disconnect()
      })()
      return stopping
    },
  }
}
