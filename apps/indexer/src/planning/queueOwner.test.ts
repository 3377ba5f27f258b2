import { randomBytes, randomUUID } from 'node:crypto'
import type { Logger } from '@uncle-rpc/config'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, test } from 'vitest'
import { createQueueOwner, ownerKey } from './queueOwner.js'

// Against the local Redis, under a prefix of its own: whose job queues these are.

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
const prefix = `uncle-rpc-test:${randomBytes(6).toString('hex')}`

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`)
  if (keys.length > 0) await redis.unlink(...keys)
  redis.disconnect()
})

function recordingLogger() {
  const lines: { level: string; msg: string }[] = []
  const at = (level: string) => (obj: object) => void lines.push({ level, msg: (obj as { msg: string }).msg })
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } as unknown as Logger }
}

describe('createQueueOwner', () => {
  test('default: untagged queues are claimed as they are; a second check of the same database clears nothing', async () => {
    const first = randomUUID()
    await redis.set(`${prefix}:index-mainnet:1`, 'job of unknown origin')
    const { lines, logger } = recordingLogger()
    const owner = createQueueOwner(redis, prefix, async () => first, logger)
    expect(await owner.check()).toBe(true)
    expect(await owner.check()).toBe(true)
    expect(await redis.get(ownerKey(prefix))).toBe(first)
    expect(await redis.get(`${prefix}:index-mainnet:1`)).toBe('job of unknown origin')
    expect(lines).toEqual([])
  })

  test("error: another database's queues are cleared once, said once; the earlier owner then queues nothing, said once", async () => {
    const earlier = createQueueOwner(redis, prefix, async () => 'earlier-database', recordingLogger().logger)
    await redis.del(ownerKey(prefix))
    expect(await earlier.check()).toBe(true)
    await redis.set(`${prefix}:index-mainnet:completed`, 'stale')
    await redis.set(`${prefix}:tip:mainnet`, 'stale lease')
    const { lines, logger } = recordingLogger()
    const later = createQueueOwner(redis, prefix, async () => 'recreated-database', logger)
    // Two passes planning at once: one claim.
    expect(await Promise.all([later.check(), later.check()])).toEqual([true, true])
    expect(await later.check()).toBe(true)
    expect(await redis.keys(`${prefix}:*`)).toEqual([ownerKey(prefix)])
    expect(lines).toEqual([{ level: 'warn', msg: expect.stringMatching(/^the job queues in Redis were made for another database of this name/) as string }])
  })

  test('error: a process whose queues another database claimed since queues nothing, and says so once', async () => {
    const { lines, logger } = recordingLogger()
    const earlier = createQueueOwner(redis, prefix, async () => 'earlier-database', logger)
    await redis.del(ownerKey(prefix))
    expect(await earlier.check()).toBe(true)
    await redis.set(ownerKey(prefix), 'another-database')
    expect(await earlier.check()).toBe(false)
    expect(await earlier.check()).toBe(false)
    expect(lines).toEqual([{ level: 'error', msg: expect.stringMatching(/^another database of this name uses the same Redis queues/) as string }])
  })

  test('error: Redis unreachable: the check rejects (the planner retries on its next pass)', async () => {
    const down = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null })
    down.on('error', () => undefined)
    const owner = createQueueOwner(down, prefix, async () => 'x', recordingLogger().logger)
    await expect(owner.check()).rejects.toThrow()
    down.disconnect()
  })
})
