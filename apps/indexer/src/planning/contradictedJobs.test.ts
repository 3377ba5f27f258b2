import { randomBytes } from 'node:crypto'
import { Queue, Worker } from 'bullmq'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { contradictedJobs, requeueContradictedJobs } from './contradictedJobs.js'
import { decodeRangeJob, encodeRangeJob, rangeJobId } from '../jobs/jobs.js'

// Against the local Redis, in queues of their own: completed jobs that the database (here a list
// of indexed ranges) contradicts.

const connection = { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', maxRetriesPerRequest: null }
const prefix = `uncle-rpc-test:${randomBytes(6).toString('hex')}`
const queue = new Queue('contradicted', { connection, prefix })
const ranges = [
  { network: 'mainnet', from: 0n, to: 99n },
  { network: 'mainnet', from: 100n, to: 199n },
  { network: 'mainnet', from: 200n, to: 299n },
]
let runs: string[] = []
let worker: Worker

const waitCompleted = async (count: number) => {
  for (let i = 0; i < 500 && (await queue.getCompletedCount()) < count; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(await queue.getCompletedCount()).toBe(count)
}

beforeAll(async () => {
  worker = new Worker('contradicted', async (job) => void runs.push(String(job.id)), { connection, prefix })
  await queue.addBulk(ranges.map((r) => ({ name: 'range', data: encodeRangeJob(r), opts: { jobId: rangeJobId(r) } })))
  await waitCompleted(3)
})

afterAll(async () => {
  await worker.close()
  await queue.obliterate({ force: true })
  await queue.close()
})

describe('contradicted jobs', () => {
  test('default: status lists the completed jobs whose blocks the database lacks, partly or wholly', async () => {
    const found = await contradictedJobs(queue, [{ from: 0n, to: 149n }], decodeRangeJob)
    expect(found).toEqual([
      { id: '100-199', from: 100n, to: 199n },
      { id: '200-299', from: 200n, to: 299n },
    ])
    expect(await contradictedJobs(queue, [{ from: 0n, to: 299n }], decodeRangeJob)).toEqual([])
  })

  test('behavior: planned ids the queue remembers as completed run again, unless the database holds them when read again', async () => {
    runs = []
    const planned = new Map(ranges.map((r) => [rangeJobId(r), r]))
    // The database read after the queue holds 0–99 (a job that completed meanwhile): only the other two run again.
    const requeued = await requeueContradictedJobs(queue, planned, async () => [{ from: 0n, to: 99n }])
    expect(requeued.sort()).toEqual(['100-199', '200-299'])
    await waitCompleted(3)
    expect(runs.sort()).toEqual(['100-199', '200-299'])
    // Two planners at once: each job is moved back once.
    runs = []
    const both = await Promise.all([1, 2].map(() => requeueContradictedJobs(queue, planned, async () => [])))
    expect(both.flat().sort()).toEqual(['0-99', '100-199', '200-299'])
    await waitCompleted(3)
    expect(runs.sort()).toEqual(['0-99', '100-199', '200-299'])
  })

  test('behavior: a job that ran again while a planner read the database is not moved back by that planner', async () => {
    runs = []
    const planned = new Map([[rangeJobId(ranges[0]!), ranges[0]!]])
    // Planner B has seen 0–99 completed; while it reads the database, planner A moves it back and it runs and completes again.
    const b = requeueContradictedJobs(queue, planned, async () => {
      expect(await requeueContradictedJobs(queue, planned, async () => [])).toEqual(['0-99'])
      await waitCompleted(3)
      return []
    })
    expect(await b).toEqual([])
    expect(runs).toEqual(['0-99'])
  })

  test('behavior: a job whose move another planner holds (its requeue lock) is left to that planner', async () => {
    const planned = new Map([[rangeJobId(ranges[1]!), ranges[1]!]])
    const client = (await queue.getBackend().client) as unknown as { set(k: string, v: string): Promise<unknown>; del(k: string): Promise<number> }
    await client.set(queue.toKey('requeue-lock:100-199'), 'another planner')
    expect(await requeueContradictedJobs(queue, planned, async () => [])).toEqual([])
    await client.del(queue.toKey('requeue-lock:100-199'))
    expect(await requeueContradictedJobs(queue, planned, async () => [])).toEqual(['100-199'])
    await waitCompleted(3)
  })

  test('behavior: ids not planned (the database holds them) are left alone', async () => {
    expect(await requeueContradictedJobs(queue, new Map(), async () => [])).toEqual([])
    expect(await requeueContradictedJobs(queue, new Map([['300-399', { from: 300n, to: 399n }]]), async () => [])).toEqual([])
  })
})
