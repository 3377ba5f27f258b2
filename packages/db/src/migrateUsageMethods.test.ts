import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createDb, type CreateDbReturnType } from './client.js'
import { migrationsFolder } from './migrate.js'
import { hashSecret } from './accounts/hashSecret.js'
import { createApiKey } from './accounts/queries/apiKeys.js'
import { addUsage, listUsage, zeroUsageCounts } from './accounts/queries/usage.js'
import { addHourlyUsage } from './accounts/queries/usageHourly.js'
import { accountMethodUsage, listMethodUsage } from './accounts/queries/usageMethods.js'
import { createTestDatabase, type TestDatabase } from './testing.js'

// Migration 0011 on a database that already has usage: usage_daily and usage_hourly rows stay as
// they were; the per-method view has no rows for those days, so their calls show as not recorded
// per method (method null), never as calls of a method they may not have been.

const statements = (file: string) =>
  readFileSync(join(migrationsFolder, file), 'utf8')
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter((s) => s !== '')

describe('migration 0011 (usage per method)', () => {
  let database: TestDatabase
  let client: pg.Client
  let opened: CreateDbReturnType
  beforeAll(async () => {
    database = await createTestDatabase({ create: false })
    const admin = new URL(database.url)
    const name = admin.pathname.slice(1)
    admin.pathname = '/postgres'
    const adminClient = new pg.Client({ connectionString: admin.toString() })
    await adminClient.connect()
    await adminClient.query(`create database ${pg.escapeIdentifier(name)}`)
    await adminClient.end()
    client = new pg.Client({ connectionString: database.url })
    await client.connect()
    opened = createDb({ url: database.url, max: 1 })
  })
  afterAll(async () => {
    await opened?.close()
    await client?.end()
    await database?.drop()
  })

  test('default: usage rows written before the migration are kept and shown as not recorded per method', async () => {
    const files = readdirSync(migrationsFolder).filter((f) => /^\d{4}_.*\.sql$/.test(f)).sort()
    for (const file of files.filter((f) => f < '0011')) for (const statement of statements(file)) await client.query(statement)
    const { db } = opened
    const { key, row } = await createApiKey(db, { plan: 'team', label: 'old usage' })
    const today = new Date().toISOString().slice(0, 10)
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString()
    await addUsage(db, [{ keyId: row.id, day: today, ...zeroUsageCounts(), requests: 9, errors: 2, rateLimited: 1, refusedOrigin: 3 }])
    await addHourlyUsage(db, [{ keyId: row.id, hour, network: 'mainnet', ...zeroUsageCounts(), requests: 9, errors: 2, rateLimited: 1, refusedOrigin: 3 }])
    const before = await listUsage(db, { keyHash: hashSecret(key), days: 1 })
    const hourlyBefore = (await client.query('select * from usage_hourly order by key_id')).rows

    for (const file of files.filter((f) => f.startsWith('0011'))) for (const statement of statements(file)) await client.query(statement)

    expect(await listUsage(db, { keyHash: hashSecret(key), days: 1 })).toEqual(before)
    expect(before).toMatchObject([{ day: today, requests: 9, errors: 2, rateLimited: 1, refusedOrigin: 3 }])
    expect((await client.query('select * from usage_hourly order by key_id')).rows).toEqual(hourlyBefore)
    expect(await listMethodUsage(db, { keyHash: hashSecret(key), days: 1 })).toEqual([])
    expect(await accountMethodUsage(db, { accountId: row.accountId, days: 30 })).toEqual([{ method: null, requests: 9, rateLimited: 1 }])
  })
})
