import { randomBytes } from 'node:crypto'
import { Queue, UnrecoverableError, Worker } from 'bullmq'
import { afterAll, describe, expect, test } from 'vitest'
import { retryExhaustedJobs } from './retryExhausted.js'

// Against the local Redis, in a queue of its own.

const connection = { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', maxRetriesPerRequest: null }
const prefix = `uncle-rpc-test:${randomBytes(6).toString('hex')}`
const queue = new Queue('retry', { connection, prefix })

afterAll(async () => {
  await queue.obliterate({ force: true })
  await queue.close()
})

describe('retryExhaustedJobs', () => {
  test('default: jobs out of attempts come back; jobs refused for good and other ids stay failed', async () => {
    let runs = 0
    const worker = new Worker(
      'retry',
      async (job) => {
        runs++
        if (job.id === 'refused') throw new UnrecoverableError('bad block')
        if (runs <= 3) throw new Error('node down')
      },
      { connection, prefix },
    )
    try {
      await queue.add('range', {}, { jobId: 'exhausted', attempts: 1 })
      await queue.add('range', {}, { jobId: 'refused', attempts: 3 })
      await queue.add('range', {}, { jobId: 'other', attempts: 1 })
      while ((await queue.getFailedCount()) < 3) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(await retryExhaustedJobs(queue, new Set(['exhausted', 'refused']))).toBe(1)
      const job = await queue.getJob('exhausted')
      for (let i = 0; i < 100 && (await job?.getState()) !== 'completed'; i++) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(await (await queue.getJob('exhausted'))?.getState()).toBe('completed')
      expect(await (await queue.getJob('refused'))?.getState()).toBe('failed')
      expect(await (await queue.getJob('other'))?.getState()).toBe('failed')
    } finally {
      await worker.close()
    }
  })
})
