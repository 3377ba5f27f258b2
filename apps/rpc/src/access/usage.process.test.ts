import { redisKeyPrefix } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { createApiKey, usageDaily } from '@uncle-rpc/db/accounts'
import { describeWithFixtures } from '@uncle-rpc/testing'
import { eq, sql } from 'drizzle-orm'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type RpcProcess, sleep, startLoad, startRpcProcess } from '../_test/rpcProcess.js'
import { mainnetBlocksFixture } from '../_test/seed.js'
import { createTestEnv, post, type TestEnv } from '../_test/server.js'

const call = '{"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockHashAndIndex","params":["0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b","0x0"]}'
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

async function counted(db: Db, keyId: number): Promise<{ requests: number; rateLimited: number }> {
  const [row] = await db
    .select({ requests: sql<string>`coalesce(sum(${usageDaily.requests}), 0)`, rateLimited: sql<string>`coalesce(sum(${usageDaily.rateLimited}), 0)` })
    .from(usageDaily)
    .where(eq(usageDaily.keyId, keyId))
  return { requests: Number(row?.requests ?? 0), rateLimited: Number(row?.rateLimited ?? 0) }
}

describeWithFixtures([mainnetBlocksFixture], 'uncle-rpc rpc usage and daily limits', () => {
  let env: TestEnv
  let rpc: RpcProcess | undefined

  beforeAll(async () => {
    env = await createTestEnv()
  })
  afterAll(async () => {
    await rpc?.cli.stop('SIGKILL')
    const redis = new Redis(redisUrl)
    const keys = await redis.keys(`${redisKeyPrefix(env.database.url)}:*`)
    if (keys.length > 0) await redis.del(...keys)
    redis.disconnect()
    await env?.close()
  })

  test('behavior: SIGKILL under load loses at most 1 s of usage', async () => {
    const { key, row } = await createApiKey(env.db, { plan: 'custom', label: 'crash' })
    rpc = await startRpcProcess(env.database.url, ['--rate-limits', 'off'])
    const load = startLoad(`${rpc.base}/v3/${key}`, call, { concurrency: 8 })
    const started = Date.now()
    await sleep(2500)
    process.kill(rpc.pid, 'SIGKILL')
    const seconds = (Date.now() - started) / 1000
    await rpc.cli.exited
    rpc = undefined
    const result = await load.stop()
    const usage = await counted(env.db, row.id)
    const perSecond = result.answered / seconds
    process.stdout.write(
      `usage on SIGKILL: answered ${result.answered}, counted ${usage.requests} (${(((result.answered - usage.requests) / result.answered) * 100).toFixed(1)}% lost; ${((result.answered - usage.requests) / perSecond).toFixed(2)} s of traffic at ${perSecond.toFixed(0)}/s)\n`,
    )
    expect(result.answered).toBeGreaterThan(100)
    // Counted calls were received; a few may have been counted with their answer still on the wire.
    expect(usage.requests).toBeLessThanOrEqual(result.answered + 8)
    expect(result.answered - usage.requests).toBeLessThanOrEqual(perSecond * 1)
  }, 30_000)

  test('behavior: a daily limit is rebuilt from usage_daily when Redis loses the day count', async () => {
    const { key, row } = await createApiKey(env.db, { plan: 'core', label: 'daily', dailyLimit: 20, rpsLimit: 1000 })
    rpc = await startRpcProcess(env.database.url)
    const url = `${rpc.base}/v3/${key}`
    for (let i = 0; i < 20; i++) expect((await post(url, call)).status).toBe(200)
    const refused = await post(url, call)
    expect(refused.status).toBe(429)
    expect(refused.body).toContain('daily request count exceeded')
    await sleep(1200)
    expect(await counted(env.db, row.id)).toEqual({ requests: 21, rateLimited: 1 })
    // Redis loses its data (our keys only: the shared Redis stays up).
    const redis = new Redis(redisUrl)
    const keys = await redis.keys(`${redisKeyPrefix(env.database.url)}:rl:*`)
    expect(keys.length).toBeGreaterThan(0)
    await redis.del(...keys)
    redis.disconnect()
    const again = await post(url, call)
    expect(again.status).toBe(429)
    expect(again.body).toContain('daily request count exceeded')
    expect(await rpc.cli.stop('SIGTERM')).toBe(0)
    rpc = undefined
  }, 30_000)
})
