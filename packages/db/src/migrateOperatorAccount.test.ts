import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { migrationsFolder } from './migrate.js'
import { createTestDatabase, type TestDatabase } from './testing.js'

// Migration 0005 on a database that already has keys: they move to the operator account.

const statements = (file: string) =>
  readFileSync(join(migrationsFolder, file), 'utf8')
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter((s) => s !== '')

describe('migration 0005 (accounts)', () => {
  let database: TestDatabase
  let client: pg.Client
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
  })
  afterAll(async () => {
    await client?.end()
    await database?.drop()
  })

  test('default: keys made before accounts existed belong to the operator account afterwards', async () => {
    for (const file of ['0000_init.sql', '0001_api_keys.sql', '0002_reorgs.sql', '0003_plans_usage.sql', '0004_lean_blocks_era1_refusals.sql'])
      for (const statement of statements(file)) await client.query(statement)
    await client.query(`insert into api_keys (key_hash, prefix, plan, label) values ('\\x01', 'aaaaaaaa', 'team', 'old'), ('\\x02', 'bbbbbbbb', 'core', null)`)
    for (const statement of statements('0005_dashboard.sql')) await client.query(statement)
    const { rows } = await client.query<{ prefix: string; plan: string; email: string; password_hash: string | null }>(
      'select k.prefix, k.plan, a.email, a.password_hash from api_keys k join accounts a on a.id = k.account_id order by k.id',
    )
    expect(rows).toEqual([
      { prefix: 'aaaaaaaa', plan: 'team', email: 'operator@uncle-rpc.invalid', password_hash: null },
      { prefix: 'bbbbbbbb', plan: 'core', email: 'operator@uncle-rpc.invalid', password_hash: null },
    ])
    const [{ nullable } = { nullable: '' }] = (await client.query<{ nullable: string }>("select is_nullable as nullable from information_schema.columns where table_name = 'api_keys' and column_name = 'account_id'")).rows
    expect(nullable).toBe('NO')
  })
})
