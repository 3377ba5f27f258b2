import { boundedTransaction, type Db } from '@uncle-rpc/db'
import { compactIndexedRanges, listEra1Refusals, listIndexedRanges, lockNetworkWrites } from '@uncle-rpc/db/chain'
import type { Logger } from '@uncle-rpc/config'
import type { Queue } from 'bullmq'
import type { Era1Files } from '../era1/era1Files.js'
import { requeueContradictedJobs } from './contradictedJobs.js'
import { encodeEpochJob, encodeRangeJob, epochJobId, epochJobName, heightPriority, rangeJobId, rangeJobName } from '../jobs/jobs.js'
import type { BlockRange } from '@uncle-rpc/chain'
import { planJobs } from './planRanges.js'
import type { QueueOwner } from './queueOwner.js'

export type PlanSnapshot = { target: bigint; indexedHeight: bigint; remaining: bigint }

export type PlanNetworkDeps = {
  db: Db
  logger: Logger
  /** The node's range queue; undefined without an rpcUrl. */
  rangeQueue: Queue | undefined
  era1Queue: Queue | undefined
  era1: Era1Files | undefined
  /** Whether the queues are this database's (queueOwner.ts); absent: not checked. */
  owner?: QueueOwner | undefined
}

export type PlanNetworkResult = {
  snapshot: PlanSnapshot
  /** Nothing left that any source can still do (refused era1 files and blocks no source holds aside). */
  nothingLeft: boolean
  warnedUncovered: boolean
}

const span = (r: BlockRange) => `${r.from}–${r.to}`
const staleMessage = (kind: string) =>
  `${kind} jobs the queue remembers as completed but whose blocks the database does not hold are queued again`

/**
 * One planning pass of a network: what `[from, to]` still lacks becomes epoch jobs (era1 files)
 * and range jobs (the node), queued under stable ids; completed jobs whose blocks the database
 * does not hold come back (Postgres decides what is indexed). Failed jobs are not retried here:
 * retries are the job layer's (worker.ts); a failed job was refused for good.
 */
export async function planNetwork(
  deps: PlanNetworkDeps,
  { network, from, to, rangeSize, warnUncovered }: { network: string; from: bigint; to: bigint; rangeSize: bigint; warnUncovered: boolean },
): Promise<PlanNetworkResult> {
  const queuing = deps.owner === undefined || (await deps.owner.check())
  let indexed = await listIndexedRanges(deps.db, { network })
  // Every finished job adds a row; merge them now and then so planning stays cheap.
  if (indexed.length > 64) {
    await boundedTransaction(deps.db, async (tx) => {
      // Note: under the shared write lock, so a reorg that un-marks heights never interleaves.
      await lockNetworkWrites(tx, { network, mode: 'shared' })
      await compactIndexedRanges(tx, { network })
    })
    indexed = await listIndexedRanges(deps.db, { network })
  }
  const planned = planJobs({ from, to, indexed, rangeSize, epochs: deps.era1 ? await deps.era1.coverage() : [] })
  const indexedNow = () => listIndexedRanges(deps.db, { network })
  if (queuing && planned.epochs.length > 0 && deps.era1Queue) {
    const jobs = planned.epochs.map((e) => ({ network, ...e }))
    await deps.era1Queue.addBulk(jobs.map((job) => ({ name: epochJobName, data: encodeEpochJob(job), opts: { jobId: epochJobId(job), priority: heightPriority(BigInt(job.epoch), 1n) } })))
    const stale = await requeueContradictedJobs(deps.era1Queue, new Map(jobs.map((job) => [epochJobId(job), job])), indexedNow)
    if (stale.length > 0) deps.logger.warn({ msg: staleMessage('epoch'), jobs: stale.length, first: stale[0] })
  }
  let warnedUncovered = false
  if (!deps.rangeQueue && planned.ranges.length > 0 && warnUncovered) {
    warnedUncovered = true
    deps.logger.error({
      msg: 'blocks that no era1 file holds, and the network has no rpcUrl to fetch them from',
      blocks: planned.ranges.length > 8 ? `${planned.ranges.slice(0, 8).map(span).join(', ')} …` : planned.ranges.map(span).join(', '),
    })
  }
  if (queuing && deps.rangeQueue && planned.ranges.length > 0) {
    const jobs = planned.ranges.map((r) => ({ network, ...r }))
    await deps.rangeQueue.addBulk(jobs.map((job) => ({ name: rangeJobName, data: encodeRangeJob(job), opts: { jobId: rangeJobId(job), priority: heightPriority(job.from, rangeSize) } })))
    // Note: addBulk skips ids that exist, failed and completed ones included; completed ones whose
    // blocks the database lacks come back here.
    const stale = await requeueContradictedJobs(deps.rangeQueue, new Map(jobs.map((job) => [rangeJobId(job), job])), indexedNow)
    if (stale.length > 0) deps.logger.warn({ msg: staleMessage('range'), jobs: stale.length, first: stale[0] })
  }
  const left = [...planned.epochs, ...planned.ranges].sort((a, b) => (a.from < b.from ? -1 : 1))
  const firstGap = left[0]?.from
  const remaining = left.reduce((sum, r) => sum + (r.to - r.from + 1n), 0n)
  // Note: refused era1 files, and blocks no source has, do not keep a bounded network from being done.
  const refused = deps.era1 ? new Set((await listEra1Refusals(deps.db, { network })).map((r) => r.epoch)) : new Set<number>()
  const nothingLeft = planned.epochs.every((e) => refused.has(e.epoch)) && (deps.rangeQueue ? planned.ranges.length === 0 : true)
  return { snapshot: { target: to, indexedHeight: firstGap === undefined ? to : firstGap - 1n, remaining }, nothingLeft, warnedUncovered }
}
