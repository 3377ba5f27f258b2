import { type BlockRange, coversRange } from '@uncle-rpc/chain'
import { type Job, Queue } from 'bullmq'

// Postgres decides what is indexed; the queue only carries work. A completed job whose blocks the
// database does not hold (the database was restored from an older backup, a reorg un-marked its
// heights, or the rows were deleted by hand) would otherwise stand in for work never done, because
// job ids are stable and BullMQ adds no job whose id it already has.

/**
 * Among `planned` (job id → the blocks the database lacks), the ids the queue remembers as
 * completed. Reads only the ids of the completed set (at most `removeOnComplete` of them).
 */
async function completedAmong(queue: Queue, planned: ReadonlyMap<string, BlockRange>): Promise<string[]> {
  if (planned.size === 0) return []
  const completed = await queue.getRanges(['completed'], 0, -1)
  return completed.filter((id) => planned.has(id))
}

/**
 * Queues again the completed jobs among `planned` whose blocks the database still lacks when
 * `indexedNow` is read (after the completed set: a job that completed since the plan was made has
 * its rows committed by then, so it is not run twice). `Job.retry('completed')` moves a job back
 * to waiting atomically, keeping its id: of several planners doing this at once, one succeeds and
 * the others find the job no longer completed. A job that has run and completed again since it
 * was seen completed (another planner moved it first) is left: its rows are newer than the
 * database read. Returns the ids queued again.
 */
export async function requeueContradictedJobs(
  queue: Queue,
  planned: ReadonlyMap<string, BlockRange>,
  indexedNow: () => Promise<readonly BlockRange[]>,
): Promise<string[]> {
  const candidates = await completedAmong(queue, planned)
  if (candidates.length === 0) return []
  // Note: which run of each was seen completed, before the database is read; compared again just before it is moved.
  const seen = new Map<string, string | undefined>()
  for (const id of candidates) seen.set(id, runOf((await queue.getJob(id)) as Job | undefined))
  const indexed = await indexedNow()
  const requeued: string[] = []
  for (const id of candidates) {
    const range = planned.get(id)
    if (range === undefined || coversRange(indexed, range)) continue
    if (await moveBackIfSameRun(queue, id, seen.get(id))) requeued.push(id)
  }
  return requeued
}

/**
 * Moves job `id` back to waiting if the run seen completed is still its last. The check and the
 * move hold a short per-job Redis lock: without it, another planner could move the job back, a
 * worker run it and complete it again between this planner's check and its move, and the job would
 * run twice. A planner that finds the lock taken leaves the job to the one holding it.
 */
async function moveBackIfSameRun(queue: Queue, id: string, seenRun: string | undefined): Promise<boolean> {
  // Note: BullMQ's client is ioredis behind a proxy that passes native arguments through (SET … NX is not in its typed subset).
  const client = (await queue.getBackend().client) as unknown as LockClient
  const lock = queue.toKey(`requeue-lock:${id}`)
  const token = `${process.pid}:${Math.random()}`
  if ((await client.set(lock, token, 'PX', requeueLockMs, 'NX')) !== 'OK') return false
  try {
    const job = (await queue.getJob(id)) as Job | undefined
    const run = runOf(job)
    if (job === undefined || run === undefined || run !== seenRun) return false
    await job.retry('completed', { resetAttemptsMade: true, resetAttemptsStarted: true })
    return true
  } catch {
    // Note: removed meanwhile (removeOnComplete), or no longer completed; either way it is not completed now.
    return false
  } finally {
    if ((await client.get(lock)) === token) await client.del(lock)
  }
}

type LockClient = {
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<'OK' | null>
  get(key: string): Promise<string | null>
  del(key: string): Promise<number>
}

// Long enough for a getJob and a retry on a slow Redis; a planner that died holding it frees it by expiry.
const requeueLockMs = 10_000

/** One run of a finished job: when it started and finished (a retry clears both). */
function runOf(job: Job | undefined): string | undefined {
  return job?.finishedOn === undefined ? undefined : `${job.processedOn}/${job.finishedOn}`
}

/** A completed job whose blocks the database does not hold, as `status` shows it. */
export type ContradictedJob = { id: string; from: bigint; to: bigint }

/**
 * The completed jobs of `queue` that the database contradicts: their blocks (from the job's data,
 * decoded by `rangeOf`) are not all in `indexed`. For `uncle-rpc status`.
 */
export async function contradictedJobs(
  queue: Queue,
  indexed: readonly BlockRange[],
  rangeOf: (data: unknown) => BlockRange,
): Promise<ContradictedJob[]> {
  const jobs = (await queue.getJobs(['completed'], 0, -1)) as (Job | undefined)[]
  const found: ContradictedJob[] = []
  for (const job of jobs) {
    if (job?.id === undefined) continue
    let range: BlockRange
    try {
      range = rangeOf(job.data)
    } catch {
      continue
    }
    if (!coversRange(indexed, range)) found.push({ id: job.id, from: range.from, to: range.to })
  }
  return found.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0))
}
