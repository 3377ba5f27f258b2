import { createLogger } from '@uncle-rpc/config'
import { createDb, type Db } from '@uncle-rpc/db'
import { addDailyAndHourlyUsage, createApiKey, hashSecret, listMethodUsage, listUsage, zeroUsageCounts } from '@uncle-rpc/db/accounts'
import { openTestDatabase, type OpenTestDatabase } from '@uncle-rpc/db/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTcpProxy, type TcpProxy } from '../_test/tcpProxy.js'
import { createUsageRecorder, type UsageStore } from './usage.js'

const logger = createLogger({ level: 'fatal', name: 'usage-test' })
const storeOn = (db: Db): UsageStore => ({ write: (batch) => addDailyAndHourlyUsage(db, batch), prune: async () => {} })

/** usage_hourly of a key: requests per network, summed over hours. */
async function hourlyRequests(db: Db, keyId: number): Promise<Record<string, number>> {
  const { rows } = await db.execute<{ network: string; requests: string }>(
    sql`select network, sum(requests)::text as requests from usage_hourly where key_id = ${keyId} group by network`,
  )
  return Object.fromEntries(rows.map((r) => [r.network, Number(r.requests)]))
}
let direct: OpenTestDatabase
let proxied: { db: Db; close: () => Promise<void> }
let proxy: TcpProxy

beforeAll(async () => {
  direct = await openTestDatabase({ max: 1 })
  const url = new URL(direct.url)
  proxy = await createTcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
  url.port = String(proxy.port)
  proxied = createDb({ url: url.toString(), max: 1 })
})

afterAll(async () => {
  await Promise.all([proxied?.close(), proxy?.close()])
  await direct?.close()
})

describe('createUsageRecorder', () => {
  test('default: counts add up in memory; each flush writes the daily and the hourly rows, which agree', async () => {
    const { key, row } = await createApiKey(direct.db, { plan: 'core' })
    const usage = createUsageRecorder({ store: storeOn(direct.db), logger })
    usage.add(row.id, 'mainnet', 3, 1, 0, 0, 'eth_getUncleByBlockHashAndIndex')
    usage.add(row.id, 'sepolia', 1, 1, 1, 1, 'eth_getUncleByBlockHashAndIndex')
    await usage.flush()
    usage.add(row.id, 'mainnet', 5, 0, 2, 0, 'eth_getUncleByBlockHashAndIndex')
    usage.refuse(row.id, 'mainnet', 'origin')
    usage.refuse(row.id, 'sepolia', 'network')
    usage.refuse(row.id, 'mainnet', 'origin')
    usage.refuse(row.id, 'mainnet', 'revoked')
    await usage.stop()
    expect(await listUsage(direct.db, { keyHash: hashSecret(key), days: 1 })).toEqual([
      {
        keyId: row.id,
        day: new Date().toISOString().slice(0, 10),
        ...zeroUsageCounts(),
        requests: 9,
        errors: 2,
        forwarded: 3,
        rateLimited: 1,
        refusedOrigin: 2,
        refusedNetwork: 1,
        refusedRevoked: 1,
      },
    ])
    expect(await hourlyRequests(direct.db, row.id)).toEqual({ mainnet: 8, sepolia: 1 })
  })

  test('behavior: counts survive a database outage and are written once it is back', async () => {
    const { key, row } = await createApiKey(direct.db, { plan: 'core' })
    const usage = createUsageRecorder({ store: storeOn(proxied.db), logger })
    usage.add(row.id, 'mainnet', 2, 0, 0, 0, 'eth_getUncleByBlockHashAndIndex')
    await proxy.cut()
    await usage.flush()
    usage.add(row.id, 'mainnet', 3, 0, 0, 0, 'eth_getUncleByBlockHashAndIndex')
    await usage.flush()
    // Nothing of the failed flushes was written to either table.
    expect(await listUsage(direct.db, { keyHash: hashSecret(key), days: 1 })).toEqual([])
    expect(await hourlyRequests(direct.db, row.id)).toEqual({})
    await proxy.restore()
    await usage.stop()
    expect((await listUsage(direct.db, { keyHash: hashSecret(key), days: 1 }))?.[0]?.requests).toBe(5)
    expect(await hourlyRequests(direct.db, row.id)).toEqual({ mainnet: 5 })
  })

  test('behavior: calls per method: a batch split by method, a rate-limited message counted whole under its methods, an outage kept', async () => {
    const { key, row } = await createApiKey(direct.db, { plan: 'core' })
    const usage = createUsageRecorder({ store: storeOn(proxied.db), logger })
    usage.add(row.id, 'mainnet', 1, 0, 0, 0, 'eth_getUncleCountByBlockHash')
    usage.add(row.id, 'mainnet', 3, 1, 0, 0, new Map([['eth_getUncleByBlockHashAndIndex', 2], ['(other)', 1]]))
    await proxy.cut()
    await usage.flush()
    usage.add(row.id, 'sepolia', 4, 4, 0, 4, new Map([['eth_getUncleByBlockHashAndIndex', 1], ['eth_getUncleCountByBlockHash', 3]]))
    await proxy.restore()
    await usage.stop()
    const methods = await listMethodUsage(direct.db, { keyHash: hashSecret(key), days: 1 })
    expect(methods?.map(({ method, requests, rateLimited }) => [method, requests, rateLimited])).toEqual([
      ['(other)', 1, 0],
      ['eth_getUncleByBlockHashAndIndex', 3, 1],
      ['eth_getUncleCountByBlockHash', 4, 3],
    ])
    expect(await listUsage(direct.db, { keyHash: hashSecret(key), days: 1 })).toMatchObject([{ requests: 8, errors: 5, rateLimited: 4 }])
  })
})
