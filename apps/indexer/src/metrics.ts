import { indexedHeight } from '@uncle-rpc/chain'
import { BaseError } from '@uncle-rpc/errors'
import type { Db } from '@uncle-rpc/db'
import { listIndexedRanges } from '@uncle-rpc/db/chain'
import { Counter, createRegistry, Gauge, type Registry } from '@uncle-rpc/metrics'
import { type ConnectionOptions, Queue } from 'bullmq'
import { era1QueueName, queueName } from './jobs/jobs.js'
import type { Progress } from './progress.js'
import type { Settled, Upstream } from './upstream/createUpstream.js'

/** What the gauges read at scrape time. */
export type IndexerMetricSources = {
  db: Db
  connection: ConnectionOptions
  prefix: string
  /** `toBlock` of a bounded network; `planned`: what the last planning pass aimed at. */
  networks: () => readonly { name: string; fromBlock: number; toBlock: number | undefined; planned: bigint | undefined }[]
}

/**
 * The indexer's Prometheus metrics. Counters move in hooks (the progress recorder, the upstream
 * client, the worker); the gauges are read when scraped: the indexed height from Postgres, the
 * jobs from BullMQ, the node's head as last seen by any request for it.
 */
export type IndexerMetrics = {
  registry: Registry
  /** The progress recorder with every recorded range also counted (blocks written, reorgs). */
  countProgress(progress: Progress): Progress
  /** The node client with every request counted by outcome and every eth_blockNumber kept as the node head. */
  countUpstream(network: string, upstream: Upstream): Upstream
  /** A range or era1 file whose blocks failed verification. */
  verificationFailed(network: string): void
  /** A job that failed for good: refused (other failures are retried without bound; a job out of attempts is counted too). */
  jobFailed(network: string): void
  /** Binds the gauges to the database, the queues and the networks; close() releases the queues. */
  watch(sources: IndexerMetricSources): { close(): Promise<void> }
}

const jobStates = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const
/** How long a scrape waits for Redis (job counts, ping) before reporting it unreachable; Prometheus' own timeout here is 5 s. */
const redisScrapeTimeoutMs = 1000

class RedisTimeoutError extends BaseError {
  constructor() {
    super(`Redis did not answer within ${redisScrapeTimeoutMs} ms`, { name: 'RedisTimeoutError' })
  }
}
/** `promise`, or a rejection once Redis took longer than a scrape can wait (a down Redis queues commands for a long time). */
function withinScrape<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisTimeoutError()), redisScrapeTimeoutMs)
  })
  // Note: the losing promise settles later; its rejection is handled by race, its value dropped.
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** The highest block below which everything from `fromBlock` is indexed (fromBlock − 1 when nothing is). */
async function contiguousHeight(db: Db, network: string, fromBlock: number): Promise<bigint> {
  return indexedHeight(BigInt(fromBlock), await listIndexedRanges(db, { network }))
}

/** Creates the indexer families on a fresh registry (with the default process metrics). */
export function createIndexerMetrics(): IndexerMetrics {
  const registry = createRegistry()
  const registers = [registry]
  const written = new Counter({
    name: 'uncle_rpc_indexer_blocks_written_total',
    help: 'Blocks written to Postgres by this process, by source (era1 files or the archive node)',
    labelNames: ['network', 'source'] as const,
    registers,
  })
  const reorgs = new Counter({ name: 'uncle_rpc_indexer_reorgs_total', help: 'Reorgs resolved (stored blocks replaced)', labelNames: ['network'] as const, registers })
  const upstream = new Counter({
    name: 'uncle_rpc_indexer_upstream_requests_total',
    help: 'JSON-RPC requests to the archive node by outcome: ok, retried (failed; its job asks again), error (refused by the node, or the call failed whole)',
    labelNames: ['network', 'outcome'] as const,
    registers,
  })
  const verification = new Counter({
    name: 'uncle_rpc_indexer_verification_failures_total',
    help: 'Ranges or era1 files whose blocks failed verification (hash, uncles, accumulator)',
    labelNames: ['network'] as const,
    registers,
  })
  const failedJobs = new Counter({
    name: 'uncle_rpc_indexer_jobs_failed_total',
    help: 'Jobs that failed for good in this process: refused (verification, the node refusing the request, an era1 file not fitting the stored chain) or out of attempts',
    labelNames: ['network'] as const,
    registers,
  })
  const heads = new Map<string, bigint>()
  let sources: IndexerMetricSources | undefined
  const queues = new Map<string, Queue[]>()
  const queuesOf = (s: IndexerMetricSources, network: string) => {
    let list = queues.get(network)
    if (list === undefined) {
      list = [queueName(network), era1QueueName(network)].map((name) => new Queue(name, { connection: s.connection, prefix: s.prefix }))
      queues.set(network, list)
    }
    return list
  }
  new Gauge({
    name: 'uncle_rpc_indexer_indexed_height',
    help: 'Highest block below which every block from fromBlock is indexed',
    labelNames: ['network'] as const,
    aggregator: 'max',
    registers,
    async collect() {
      if (sources === undefined) return
      const { db } = sources
      for (const n of sources.networks()) this.set({ network: n.name }, Number(await contiguousHeight(db, n.name, n.fromBlock)))
    },
  })
  new Gauge({
    name: 'uncle_rpc_indexer_node_head',
    help: 'Latest block number the archive node reported (eth_blockNumber)',
    labelNames: ['network'] as const,
    aggregator: 'max',
    registers,
    collect() {
      for (const [network, head] of heads) this.set({ network }, Number(head))
    },
  })
  new Gauge({
    name: 'uncle_rpc_indexer_target_height',
    help: 'Block the indexer works up to: toBlock, else the node head (the head follower indexes up to it)',
    labelNames: ['network'] as const,
    aggregator: 'max',
    registers,
    collect() {
      for (const n of sources?.networks() ?? []) {
        const target = n.toBlock !== undefined ? BigInt(n.toBlock) : (heads.get(n.name) ?? n.planned)
        if (target !== undefined) this.set({ network: n.name }, Number(target))
      }
    },
  })
  new Gauge({
    name: 'uncle_rpc_indexer_jobs',
    help: 'BullMQ jobs of a network (range and era1 epoch queues) by state',
    labelNames: ['network', 'state'] as const,
    aggregator: 'max',
    registers,
    async collect() {
      if (sources === undefined) return
      for (const n of sources.networks()) {
        const queued = queuesOf(sources, n.name)
        // Note: without Redis the series are left out (not stale, not a failed scrape); uncle_rpc_indexer_redis_up says why.
        const counts = await withinScrape(Promise.all(queued.map((q) => q.getJobCounts(...jobStates, 'prioritized')))).catch(() => undefined)
        if (counts === undefined) {
          for (const state of jobStates) this.remove({ network: n.name, state })
          continue
        }
        for (const state of jobStates) {
          const extra = state === 'waiting' ? 'prioritized' : undefined
          this.set({ network: n.name, state }, counts.reduce((sum, c) => sum + (c[state] ?? 0) + (extra ? (c[extra] ?? 0) : 0), 0))
        }
      }
    },
  })

  const track = async <T>(network: string, entries: number, request: Promise<T>): Promise<T> => {
    try {
      const result = await request
      upstream.inc({ network, outcome: 'ok' }, entries)
      return result
    } catch (error) {
      upstream.inc({ network, outcome: 'error' }, entries)
      throw error
    }
  }
  // Note: a pass settles each request; those that failed are asked again by their job ('retried').
  const trackSettled = async <T>(network: string, entries: number, request: Promise<Settled<T>[]>): Promise<Settled<T>[]> => {
    let settled: Settled<T>[]
    try {
      settled = await request
    } catch (error) {
      upstream.inc({ network, outcome: 'error' }, entries)
      throw error
    }
    const failed = settled.filter((s) => !s.ok).length
    if (settled.length > failed) upstream.inc({ network, outcome: 'ok' }, settled.length - failed)
    if (failed > 0) upstream.inc({ network, outcome: 'retried' }, failed)
    return settled
  }

  return {
    registry,
    countProgress: (progress) => ({
      ...progress,
      recordRange(network, result) {
        progress.recordRange(network, result)
        if ((result.written ?? result.blocks) > 0) written.inc({ network, source: result.source ?? 'rpc' }, result.written ?? result.blocks)
        if ((result.reorgs ?? 0) > 0) reorgs.inc({ network }, result.reorgs)
      },
    }),
    countUpstream: (network, client) => ({
      ...client,
      requestMany: (requests, accept) => trackSettled(network, requests.length, client.requestMany(requests, accept)),
      chainId: () => track(network, 1, client.chainId()),
      async blockNumber() {
        const head = await track(network, 1, client.blockNumber())
        heads.set(network, head)
        return head
      },
    }),
    verificationFailed: (network) => verification.inc({ network }),
    jobFailed: (network) => failedJobs.inc({ network }),
    watch(next) {
      sources = next
      // Note: registered once there is a Redis to ask; an unlabelled gauge always has a sample, and a 0 before would be a false alert.
      if (registry.getSingleMetric('uncle_rpc_indexer_redis_up') === undefined)
        new Gauge({
          name: 'uncle_rpc_indexer_redis_up',
          help: `Whether Redis (the job queues, the head lease) answered a command within ${redisScrapeTimeoutMs} ms at this scrape`,
          aggregator: 'min',
          registers,
          async collect() {
            const first = sources?.networks()[0]
            if (sources === undefined || first === undefined) return
            const queue = queuesOf(sources, first.name)[0]!
            const answered = await withinScrape(queue.getJobCounts('waiting')).then(
              () => true,
              () => false,
            )
            this.set(answered ? 1 : 0)
          },
        })
      return {
        async close() {
          sources = undefined
          await Promise.all([...queues.values()].flat().map((q) => q.close()))
          queues.clear()
        },
      }
    },
  }
}
