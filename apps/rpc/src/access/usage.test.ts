import { createLogger } from '@uncle-rpc/config'
import { addUsage, createDb, type Db, listUsage } from '@uncle-rpc/db'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTcpProxy, type TcpProxy } from '../_test/tcpProxy.js'
import { createApiKey } from './keys.js'
import { hashApiKey } from './auth.js'
import { createUsageRecorder } from './usage.js'

const logger = createLogger({ level: 'fatal', name: 'usage-test' })
let database: TestDatabase
let direct: { db: Db; close: () => Promise<void> }
let proxied: { db: Db; close: () => Promise<void> }
let proxy: TcpProxy

beforeAll(async () => {
  database = await createTestDatabase()
  direct = createDb({ url: database.url, max: 1 })
  const url = new URL(database.url)
  proxy = await createTcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
  url.port = String(proxy.port)
  proxied = createDb({ url: url.toString(), max: 1 })
})

afterAll(async () => {
  await Promise.all([direct?.close(), proxied?.close(), proxy?.close()])
  await database?.drop()
})

describe('createUsageRecorder', () => {
  test('default: counts add up in memory and are written in one upsert per flush', async () => {
    const { key, row } = await createApiKey(direct.db, { plan: 'core' })
    const usage = createUsageRecorder({ store: (deltas) => addUsage(direct.db, deltas), logger })
    usage.add(row.id, 3, 1, 0, 0)
    usage.add(row.id, 1, 1, 1, 1)
    await usage.flush()
    usage.add(row.id, 5, 0, 2, 0)
    await usage.stop()
    expect(await listUsage(direct.db, { keyHash: hashApiKey(key), days: 1 })).toEqual([
      { keyId: row.id, day: new Date().toISOString().slice(0, 10), requests: 9, errors: 2, forwarded: 3, rateLimited: 1 },
    ])
  })

  test('behavior: counts survive a database outage and are written once it is back', async () => {
    const { key, row } = await createApiKey(direct.db, { plan: 'core' })
    const usage = createUsageRecorder({ store: (deltas) => addUsage(proxied.db, deltas), logger })
    usage.add(row.id, 2, 0, 0, 0)
    await proxy.cut()
    await usage.flush()
    usage.add(row.id, 3, 0, 0, 0)
    await usage.flush()
    await proxy.restore()
    await usage.stop()
    expect((await listUsage(direct.db, { keyHash: hashApiKey(key), days: 1 }))?.[0]?.requests).toBe(5)
  })
})
