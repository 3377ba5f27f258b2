import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { migrateDatabase } from './migrate.js'
import { createTestDatabase, type TestDatabase } from './testing.js'

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
})

afterAll(async () => {
  await database?.drop()
})

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<T>(text)).rows
  } finally {
    await client.end()
  }
}

describe('migrateDatabase', () => {
  test('default', async () => {
    const relations = await query<{ relname: string; relkind: string }>(
      database.url,
      `select relname, relkind from pg_class join pg_namespace n on n.oid = relnamespace
       where nspname = 'public' and relkind in ('r', 'v') order by relname`,
    )
    expect(relations.map((r) => `${r.relname}:${r.relkind}`)).toEqual([
      'account_tokens:r',
      'accounts:r',
      'api_keys:r',
      'blocks:r',
      'blocks_hex:v',
      'database_identity:r',
      'era1_refusals:r',
      'indexed_ranges:r',
      'networks:r',
      'plans:r',
      'reorgs:r',
      'request_limits:r',
      'sessions:r',
      'sign_in_failures:r',
      'uncles:r',
      'uncles_hex:v',
      'upgrade_requests:r',
      'usage_daily:r',
      'usage_hourly:r',
      'usage_methods:r',
    ])
  })

  test('behavior: idempotent', async () => {
    const again = await migrateDatabase({ url: database.url })
    expect(again).toMatchObject({ created: false, applied: 0 })
    expect(again.total).toBeGreaterThan(0)
    expect(await migrateDatabase({ url: database.url })).toEqual(again)
  })

  test('behavior: concurrent starters create the database and apply each migration once', async () => {
    const fresh = await createTestDatabase({ create: false })
    const logged: object[] = []
    const logger = { info: (o: object) => logged.push(o), warn: (o: object) => logged.push(o) }
    try {
      const results = await Promise.all([1, 2, 3].map(() => migrateDatabase({ url: fresh.url, logger })))
      expect(results.filter((r) => r.created)).toHaveLength(1)
      expect(results.reduce((sum, r) => sum + r.applied, 0)).toBe(results[0]?.total)
      expect(logged).toContainEqual({ msg: 'created database', database: new URL(fresh.url).pathname.slice(1) })
    } finally {
      await fresh.drop()
    }
  })

  test('error: unreachable server', async () => {
    await expect(migrateDatabase({ url: 'postgres://postgres@127.0.0.1:1/x' })).rejects.toThrow('Could not create database "x"')
  })
})
