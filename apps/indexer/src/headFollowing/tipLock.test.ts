import { randomBytes } from 'node:crypto'
import { sleep } from '@uncle-rpc/process'
import { startRedisServer } from '@uncle-rpc/testing'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { createTipLock } from './tipLock.js'

// Against the local Redis; every test uses its own key.

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 })
const key = () => `uncle-rpc:test:tip:${randomBytes(6).toString('hex')}`

afterAll(() => {
  redis.disconnect()
})

describe('createTipLock', () => {
  test('default: one holder at a time; released, another takes it', async () => {
    const k = key()
    const a = createTipLock(redis, { key: k, ttlMs: 5_000 })
    const b = createTipLock(redis, { key: k, ttlMs: 5_000 })
    expect(await a.acquire()).toBe(true)
    expect(await a.acquire()).toBe(true)
    expect(await b.acquire()).toBe(false)
    expect([a.held, b.held]).toEqual([true, false])
    await b.release()
    expect(await redis.exists(k)).toBe(1)
    await a.release()
    expect(a.held).toBe(false)
    expect(await b.acquire()).toBe(true)
    await b.release()
    expect(await redis.exists(k)).toBe(0)
  })

  test('behavior: a holder keeps renewing past the lease; a silent holder loses it to another', async () => {
    const k = key()
    const a = createTipLock(redis, { key: k, ttlMs: 300 })
    expect(await a.acquire()).toBe(true)
    // Real delay: two lease lengths and more, held only by renewals.
    await sleep(700)
    const b = createTipLock(redis, { key: k, ttlMs: 300 })
    expect(await b.acquire()).toBe(false)
    await a.release()

    // A holder whose lease was taken over (as after a long pause) notices at its next renewal.
    let lost = 0
    const c = createTipLock(redis, { key: k, ttlMs: 300, onLost: () => lost++ })
    expect(await c.acquire()).toBe(true)
    await redis.set(k, 'someone else')
    await vi.waitUntil(() => !c.held, { timeout: 2_000, interval: 10 })
    expect(lost).toBe(1)
    await c.release()
    expect(await redis.get(k)).toBe('someone else')
    await redis.del(k)
  })

  test('behavior: a lone holder whose event loop was busy past the lease keeps it (nobody else took it)', async () => {
    const k = key()
    const reasons: string[] = []
    const a = createTipLock(redis, { key: k, ttlMs: 300, onLost: (reason) => reasons.push(reason) })
    expect(await a.acquire()).toBe(true)
    // A busy event loop: no renewal runs while the lease expires in Redis.
    const until = Date.now() + 700
    while (Date.now() < until) {
      // busy
    }
    expect(await redis.exists(k)).toBe(0)
    // The late renewal writes the key again.
    await vi.waitUntil(async () => (await redis.exists(k)) === 1, { timeout: 2_000, interval: 10 })
    expect(reasons).toEqual([])
    expect(a.held).toBe(true)
    expect(await redis.pttl(k)).toBeGreaterThan(0)
    await a.release()
    expect(await redis.exists(k)).toBe(0)
  })

  test('behavior: a lease another process took is reported as taken', async () => {
    const k = key()
    const reasons: string[] = []
    const a = createTipLock(redis, { key: k, ttlMs: 300, onLost: (reason) => reasons.push(reason) })
    expect(await a.acquire()).toBe(true)
    await redis.set(k, 'someone else')
    await vi.waitUntil(() => reasons.length > 0, { timeout: 2_000, interval: 10 })
    expect(reasons).toEqual(['taken'])
    await redis.del(k)
  })

  test('error: a frozen Redis (renewals neither answer nor fail) loses the lease once it would have expired, and it is taken again after', async () => {
    const server = await startRedisServer()
    // No command timeout on the client: the lock must notice the silence by itself.
    const client = new Redis(server.url, { maxRetriesPerRequest: 2 })
    try {
      const k = key()
      const reasons: string[] = []
      const a = createTipLock(client, { key: k, ttlMs: 300, onLost: (reason) => reasons.push(reason) })
      expect(await a.acquire()).toBe(true)
      server.freeze()
      const frozenAt = Date.now()
      await vi.waitUntil(() => reasons.length > 0, { timeout: 3_000, interval: 10 })
      expect(reasons).toEqual(['unreachable'])
      expect(a.held).toBe(false)
      // Given up no sooner than the lease could have expired, and not long after.
      expect(Date.now() - frozenAt).toBeGreaterThanOrEqual(200)
      server.thaw()
      // The renewals sent while frozen run now; the key lapses and the lease can be taken again.
      await vi.waitUntil(async () => await a.acquire(), { timeout: 3_000, interval: 50 })
      expect(a.held).toBe(true)
      await a.release()
    } finally {
      client.disconnect()
      await server.stop()
    }
  })
})
