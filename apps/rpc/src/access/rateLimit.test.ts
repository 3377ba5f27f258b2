import { randomBytes } from 'node:crypto'
import { createLogger } from '@uncle-rpc/config'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, test } from 'vitest'
import { startRedisServer } from '@uncle-rpc/testing'
import { createTcpProxy } from '../_test/tcpProxy.js'
import type { KeyRecord } from './auth.js'
import { createRateLimiter, type RateLimiter, type RateVerdict } from './rateLimit.js'

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const prefix = `uncle-rpc-test:${randomBytes(6).toString('hex')}`
const lines: string[] = []
const logger = createLogger({ level: 'info', name: 'rate-limit-test', destination: { write: (line: string) => void lines.push(line) } })
const limiters: RateLimiter[] = []

function limiter(url = redisUrl, options: { commandTimeoutMs?: number } = {}): RateLimiter {
  const created = createRateLimiter({ logger }, { redisUrl: url, prefix, ...options })
  limiters.push(created)
  return created
}

let nextId = 1
function key(requestsPerSecond: number, requestsPerDay = 1_000_000): KeyRecord {
  const id = nextId++
  return { id, keyHash: `0x${id.toString(16).padStart(64, '0')}`, plan: 'core', revoked: false, requestsPerSecond, requestsPerDay, maxBatchSize: 100, failoverAllowed: false, failover: false }
}

/** Waits for the start of the next second (+20 ms), so a burst falls in one window. */
async function nextSecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1020 - (Date.now() % 1000)))
}

const burst = (rl: RateLimiter, k: KeyRecord, n: number, cost = 1) => Promise.all(Array.from({ length: n }, () => rl.take(k, cost)))
const admitted = (verdicts: RateVerdict[]) => verdicts.filter((v) => v.ok).length

afterAll(async () => {
  await Promise.all(limiters.map((l) => l.close()))
  const redis = new Redis(redisUrl)
  const keys = await redis.keys(`${prefix}:*`)
  if (keys.length > 0) await redis.del(...keys)
  redis.disconnect()
})

describe('createRateLimiter', () => {
  test('default: a small per-second limit is exact; refusals carry the contract data; the next second admits again', async () => {
    const rl = limiter()
    expect(await rl.ready(2000)).toBe(true)
    const k = key(5)
    await nextSecond()
    const verdicts = await burst(rl, k, 50)
    expect(admitted(verdicts)).toBe(5)
    const refused = verdicts.find((v) => !v.ok)
    expect(refused).toMatchObject({ ok: false, kind: 'rps', allowedRps: 5, retryAfterSeconds: 1 })
    expect((refused as { currentRps: number }).currentRps).toBeGreaterThan(5)
    // Refused in memory for the rest of the second: no Promise.
    expect(rl.take(k, 1)).toMatchObject({ ok: false, kind: 'rps' })
    await nextSecond()
    expect(admitted(await burst(rl, k, 3))).toBe(3)
  })

  test('behavior: two limiters (as two processes) share one budget', async () => {
    const a = limiter()
    const b = limiter()
    await Promise.all([a.ready(2000), b.ready(2000)])
    const k = key(8)
    await nextSecond()
    const [fromA, fromB] = await Promise.all([burst(a, k, 10), burst(b, k, 10)])
    expect(admitted(fromA) + admitted(fromB)).toBe(8)
  })

  test('behavior: large limits are served from a lease: one Redis call, then synchronous verdicts', async () => {
    const rl = limiter()
    await rl.ready(2000)
    const k = key(1_000_000, 1_000_000_000)
    await nextSecond()
    expect(await rl.take(k, 1)).toEqual({ ok: true })
    const sync = Array.from({ length: 1000 }, () => rl.take(k, 1))
    expect(sync.every((v) => !(v instanceof Promise) && v.ok)).toBe(true)
  })

  test('behavior: the daily limit counts batch entries and refuses until UTC midnight', async () => {
    const rl = limiter()
    await rl.ready(2000)
    const k = key(100, 20)
    expect(await rl.take(k, 15)).toEqual({ ok: true })
    const refused = await rl.take(k, 10)
    const midnight = Math.ceil(Date.now() / 86_400_000) * 86_400_000
    expect(refused).toMatchObject({ ok: false, kind: 'daily', allowedDaily: 20 })
    expect(Math.abs((refused as { retryAfterSeconds: number }).retryAfterSeconds - (midnight - Date.now()) / 1000)).toBeLessThan(3)
    expect(await rl.take(k, 5)).toEqual({ ok: true })
    expect(await rl.take(k, 1)).toMatchObject({ ok: false, kind: 'daily' })
  })

  test('error: Redis unreachable: per-process limits at once, one loud log line', async () => {
    const before = lines.length
    const rl = limiter('redis://127.0.0.1:1')
    expect(await rl.ready(100)).toBe(false)
    const k = key(3)
    await nextSecond()
    const started = performance.now()
    const verdicts = Array.from({ length: 5 }, () => rl.take(k, 1))
    expect(performance.now() - started).toBeLessThan(50)
    expect(verdicts.map((v) => (v instanceof Promise ? 'pending' : v.ok))).toEqual([true, true, true, false, false])
    const logged = lines.slice(before).filter((line) => line.includes('Redis unreachable'))
    expect(logged).toHaveLength(1)
    expect(JSON.parse(logged[0]!)).toMatchObject({ level: 50, msg: expect.stringContaining('failing open') })
  })

  test('error: Redis stalls: answers within the command timeout, then back to Redis when it recovers', async () => {
    const proxy = await createTcpProxy({ host: '127.0.0.1', port: Number(new URL(redisUrl).port || 6379) })
    try {
      const rl = createRateLimiter({ logger }, { redisUrl: `redis://127.0.0.1:${proxy.port}`, prefix, commandTimeoutMs: 100, backoffMs: 200, maxBackoffMs: 200 })
      limiters.push(rl)
      expect(await rl.ready(2000)).toBe(true)
      const k = key(2)
      proxy.hang()
      await nextSecond()
      const started = performance.now()
      const verdicts = await burst(rl, k, 4)
      expect(performance.now() - started).toBeLessThan(400)
      expect(admitted(verdicts)).toBe(2)
      await proxy.restore()
      // ioredis reconnects (its socket was destroyed); the limiter asks Redis again after its back-off.
      const until = Date.now() + 5000
      while (Date.now() < until && !lines.some((line) => line.includes('Redis reachable again'))) {
        await rl.take(k, 1)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(lines.some((line) => line.includes('Redis reachable again'))).toBe(true)
    } finally {
      await proxy.close()
    }
  })

  test('error: a frozen Redis: no request waits past the timeout; the calls it runs after the thaw take no tokens', async () => {
    const server = await startRedisServer()
    const watcher = new Redis(server.url)
    try {
      const rl = createRateLimiter({ logger }, { redisUrl: server.url, prefix, commandTimeoutMs: 200, backoffMs: 300, maxBackoffMs: 300 })
      limiters.push(rl)
      expect(await rl.ready(2000)).toBe(true)
      // A large limit: its lease is 100,000 tokens, counted in Redis's daily window when taken.
      const big = key(1_000_000, 1_000_000_000)
      const small = key(5)
      await nextSecond()
      expect(await rl.take(big, 1)).toEqual({ ok: true })
      const dayKey = (await watcher.keys(`${prefix}:rl:${big.id}:d:*`))[0]!
      const before = Number(await watcher.get(dayKey))
      server.freeze()
      let longest = 0
      let admittedBig = 0
      const until = Date.now() + 3000
      while (Date.now() < until) {
        await Promise.all(
          [big, small, key(1000)].map(async (k) => {
            const started = performance.now()
            const verdict = await rl.take(k, 1)
            longest = Math.max(longest, performance.now() - started)
            if (k === big && verdict.ok) admittedBig++
          }),
        )
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      server.thaw()
      // Redis now runs what it was sent while frozen; then the count is read.
      await new Promise((resolve) => setTimeout(resolve, 500))
      const after = Number(await watcher.get(dayKey))
      expect(longest).toBeLessThan(200 + 150)
      expect(admittedBig).toBeGreaterThan(0)
      // The unused lease went back; calls that ran late took nothing (before: ~100,000 more per call).
      expect(after).toBeLessThan(before)
    } finally {
      watcher.disconnect()
      await server.stop()
    }
  })
})
