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
export async function completedAmong(queue: Queue, planned: ReadonlyMap<string, BlockRange>): Promise<string[]> {
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
    const job = (await queue.getJob(id)) as Job | undefined
    const run = runOf(job)
    if (job === undefined || run === undefined || run !== seen.get(id)) continue
    try {
      await job.retry('completed', { resetAttemptsMade: true, resetAttemptsStarted: true })
      requeued.push(id)
    } catch {
      // Note: another planner moved it first, or it was removed meanwhile (removeOnComplete); either way it is not completed now.
    }
  }
  return requeued
}

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
