import { type BlockRange, holesBelowTop, indexedHeight } from '@uncle-rpc/chain'
import type { Db } from '@uncle-rpc/db'
import {
  blocksIndexedSince,
  countBlocks,
  countUncles,
  readDatabaseIdentity,
  latestIndexedBlock,
  listEra1Refusals,
  listIndexedRanges,
  listNetworks,
  reorgStats,
} from '@uncle-rpc/db/chain'
import { type ConnectionOptions, Queue } from 'bullmq'
import { contradictedJobs } from '../planning/contradictedJobs.js'
import { decodeEpochJob, decodeRangeJob, era1QueueName, queueName } from '../jobs/jobs.js'
import { createProbe } from '../network/probe.js'
import { formatEta } from '../progress.js'
import { ownerKey } from '../planning/queueOwner.js'
import { formatProgress } from './statusView.js'

export type FailedJob = { id: string; attempts: number; reason: string; failedAt: string | undefined }

export type NetworkStatus = {
  network: string
  chainId: string | undefined
  blocks: number
  uncles: number
  latest: { number: string; hash: string } | null
  indexedRanges: { from: string; to: string }[]
  /** Holes below the highest indexed block: blocks that should be there and are not. */
  gaps: { from: string; to: string }[]
  jobs: { waiting: number; active: number; delayed: number; failed: number } | { error: string }
  failed: FailedJob[]
  /**
   * Jobs the queue remembers as completed whose blocks the database does not hold: a running
   * indexer queues them again at its next planning pass.
   */
  contradicted: { id: string; from: string; to: string }[]
  /**
   * Whose the job queues in Redis are: this database's, another database's of the same name (an
   * indexer clears them when it starts), or untagged (made before queues named their database).
   */
  queueOwner: 'this database' | 'another database' | 'untagged' | null
  /** era1 files refused for failing verification or not fitting the stored chain (nothing of them is written). */
  era1Refused: { epoch: number; file: string; reason: string; at: string }[]
  /** Reorgs applied while following the head (replaced blocks stay stored, not canonical). */
  reorgs: { count: number; deepest: number; replacedBlocks: number; last: string | null }
  /** Highest block below which everything from fromBlock is indexed. */
  indexedHeight: string
  /** Blocks in the indexed ranges (for rates between two looks). */
  indexedBlocks: string
  /** toBlock, else the node's head; null when unknown. */
  target: string | null
  /** The node's eth_blockNumber now; null without a config naming it, or when it does not answer. */
  nodeHead: string | null
  /** Node head − latest indexed block; null without the node's head. */
  headLag: string | null
  /** Blocks indexed per second over the last minute (ranges marked indexed then, by the database's clock). */
  blocksPerSecond: number | null
  eta: string | null
}

/** A network as `status` looks at it: from the config (with its node) or only its name and fromBlock. */
export type StatusNetwork = { name: string; fromBlock: number; toBlock?: number | undefined; rpcUrl?: string | undefined; chainId?: number }

async function nodeHead(network: StatusNetwork): Promise<bigint | null> {
  if (network.rpcUrl === undefined || network.chainId === undefined) return null
  const probe = createProbe({ name: network.name, chainId: network.chainId, fromBlock: network.fromBlock, confirmations: 0, rpcUrl: network.rpcUrl })
  try {
    return await probe.blockNumber()
  } catch {
    // Note: an unreachable node is shown as "node not asked"/null, not as a failed status.
    return null
  } finally {
    await probe.close()
  }
}

/** The window of `blocksPerSecond`. */
const rateWindowSeconds = 60

const str = (r: BlockRange) => ({ from: r.from.toString(), to: r.to.toString() })

async function queueStatus(
  connection: ConnectionOptions,
  prefix: string,
  network: string,
  database: { indexed: readonly BlockRange[]; identity: string | null },
): Promise<Pick<NetworkStatus, 'jobs' | 'failed' | 'contradicted' | 'queueOwner'>> {
  const queues = [queueName(network), era1QueueName(network)].map((name) => new Queue(name, { connection, prefix }))
  // Note: the failure reaches the caller through the awaited calls; BullMQ would also print it raw.
  for (const q of queues) q.on('error', () => undefined)
  try {
    const all = await Promise.all(queues.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized')))
    const counts: Record<string, number> = {}
    for (const c of all) for (const [k, v] of Object.entries(c)) counts[k] = (counts[k] ?? 0) + v
    const failedJobs = (await Promise.all(queues.map((q) => q.getFailed(0, 49)))).flat()
    const [rangeQueue, epochQueue] = queues as [Queue, Queue]
    const contradicted = [
      ...(await contradictedJobs(rangeQueue, database.indexed, decodeRangeJob)),
      ...(await contradictedJobs(epochQueue, database.indexed, decodeEpochJob)),
    ]
    const owner = await (await rangeQueue.getBackend().client).get(ownerKey(prefix))
    return {
      contradicted: contradicted.map((job) => ({ id: job.id, from: job.from.toString(), to: job.to.toString() })),
      queueOwner: owner === null ? 'untagged' : owner === database.identity ? 'this database' : 'another database',
      jobs: {
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        failed: counts.failed ?? 0,
      },
      failed: failedJobs.map((job) => ({
        id: String(job.id),
        attempts: job.attemptsMade,
        reason: job.failedReason,
        failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : undefined,
      })),
    }
  } finally {
    await Promise.all(queues.map((q) => q.close()))
  }
}

/** Per-network progress from Postgres (ranges, gaps, counts) and Redis (jobs, failures). */
export async function collectStatus(
  deps: { db: Db; connection: ConnectionOptions; prefix: string },
  networks: readonly StatusNetwork[] | undefined,
): Promise<NetworkStatus[]> {
  const known = await listNetworks(deps.db)
  const identity = await readDatabaseIdentity(deps.db)
  const list: readonly StatusNetwork[] = networks ?? known.map((n) => ({ name: n.name, fromBlock: 0 }))
  return Promise.all(
    list.map(async (network) => {
      const { name, fromBlock } = network
      const ranges = await listIndexedRanges(deps.db, { network: name })
      const holes = holesBelowTop(BigInt(fromBlock), ranges)
      const height = indexedHeight(BigInt(fromBlock), ranges)
      const head = await nodeHead(network)
      const target = network.toBlock !== undefined ? BigInt(network.toBlock) : head
      const jobs = await queueStatus(deps.connection, deps.prefix, name, { indexed: ranges, identity }).catch((error: unknown) => ({
        jobs: { error: `queue unavailable: ${error instanceof Error ? error.message : String(error)}` },
        failed: [],
        contradicted: [],
        queueOwner: null,
      }))
      const latest = await latestIndexedBlock(deps.db, { network: name })
      // Note: from the database's record of finished ranges over the last minute, not from two
      // looks a second apart, which mostly see no range finish and read "0 blocks/s".
      const rate = Number(await blocksIndexedSince(deps.db, { network: name, seconds: rateWindowSeconds })) / rateWindowSeconds
      const reorgs = await reorgStats(deps.db, { network: name })
      const refused = await listEra1Refusals(deps.db, { network: name })
      return {
        network: name,
        chainId: known.find((n) => n.name === name)?.chainId.toString(),
        blocks: await countBlocks(deps.db, { network: name }),
        uncles: await countUncles(deps.db, { network: name }),
        latest: latest && { number: latest.number.toString(), hash: latest.hash },
        indexedRanges: ranges.map(str),
        gaps: holes.map(str),
        ...jobs,
        era1Refused: refused.map((r) => ({ epoch: r.epoch, file: r.file, reason: r.reason, at: r.refusedAt.toISOString() })),
        reorgs: {
          count: reorgs.reorgs,
          deepest: reorgs.deepest,
          replacedBlocks: reorgs.replaced,
          last: reorgs.last?.toISOString() ?? null,
        },
        indexedHeight: height.toString(),
        indexedBlocks: ranges.reduce((sum, r) => sum + (r.to - r.from + 1n), 0n).toString(),
        target: target === null ? null : target.toString(),
        nodeHead: head === null ? null : head.toString(),
        headLag: head === null ? null : (head - (latest?.number ?? height)).toString(),
        blocksPerSecond: rate,
        eta: target === null ? null : formatEta(target - height, rate),
      }
    }),
  )
}

/** The human-readable form of {@link collectStatus}. */
export function formatStatus(statuses: readonly NetworkStatus[]): string {
  if (statuses.length === 0) return 'no networks indexed yet\n'
  const span = (r: { from: string; to: string }) => (r.from === r.to ? r.from : `${r.from}–${r.to}`)
  return statuses
    .map((s) => {
      const lines = [`${s.network}${s.chainId ? ` (chainId ${s.chainId})` : ''}`]
      lines.push(
        formatProgress(
          {
            indexedHeight: BigInt(s.indexedHeight),
            target: s.target === null ? null : BigInt(s.target),
            nodeHead: s.nodeHead === null ? null : BigInt(s.nodeHead),
            blocksPerSecond: s.blocksPerSecond,
          },
          s.latest === null ? null : BigInt(s.latest.number),
        ),
      )
      lines.push(
        `  blocks: ${s.blocks}   uncles: ${s.uncles}   latest: ${s.latest ? `${s.latest.number} ${s.latest.hash}` : 'none'}`,
      )
      lines.push(`  indexed: ${s.indexedRanges.length ? s.indexedRanges.map(span).join(', ') : 'nothing yet'}`)
      lines.push(`  gaps: ${s.gaps.length ? s.gaps.map(span).join(', ') : 'none'}`)
      lines.push(
        'error' in s.jobs
          ? `  jobs: ${s.jobs.error}`
          : `  jobs: ${s.jobs.waiting} waiting, ${s.jobs.active} active, ${s.jobs.delayed} retrying, ${s.jobs.failed} failed`,
      )
      lines.push(
        s.reorgs.count === 0
          ? '  reorgs: none'
          : `  reorgs: ${s.reorgs.count} (deepest ${s.reorgs.deepest}, ${s.reorgs.replacedBlocks} blocks replaced, last at ${s.reorgs.last})`,
      )
      if (s.queueOwner === 'another database')
        lines.push('  queue: made for another database of this name (dropped and created again?); an indexer clears it when it starts')
      if (s.contradicted.length > 0) {
        const shown = s.contradicted.slice(0, 8).map((j) => `${j.id} (${span(j)})`).join(', ')
        lines.push(
          `  contradicted: ${s.contradicted.length} completed jobs whose blocks the database does not hold: ${shown}${s.contradicted.length > 8 ? ' …' : ''}; a running indexer queues them again`,
        )
      }
      for (const r of s.era1Refused) lines.push(`  refused era1 file ${r.file} (epoch ${r.epoch}) at ${r.at}: ${r.reason}`)
      for (const f of s.failed)
        lines.push(`  failed job ${f.id} after ${f.attempts} attempts${f.failedAt ? ` at ${f.failedAt}` : ''}: ${f.reason}`)
      return lines.join('\n')
    })
    .join('\n\n')
    .concat('\n')
}
