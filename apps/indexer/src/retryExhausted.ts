import type { Job, Queue } from 'bullmq'

/**
 * Puts back in the queue the failed jobs among `ids` whose attempts ran out (transient failures,
 * e.g. a node down for longer than the retries last), with fresh attempts, so an outage of any
 * length leaves no range behind. Jobs refused for good (UnrecoverableError: a block failed
 * verification) gave up before their attempts ran out and stay failed. Returns how many came back.
 */
export async function retryExhaustedJobs(queue: Queue, ids: ReadonlySet<string>): Promise<number> {
  const failed = (await queue.getFailed(0, 999)) as Job[]
  let retried = 0
  for (const job of failed) {
    if (job.id === undefined || !ids.has(job.id)) continue
    if (job.attemptsMade < (job.opts.attempts ?? 1)) continue
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true })
    retried++
  }
  return retried
}
