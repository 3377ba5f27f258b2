import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { migrationsFolder } from './migrate.js'
import { createTestDatabase, type TestDatabase } from './testing.js'

// Migration 0009 on a database that already has dashboard accounts: they count as verified, so
// they keep making keys; their sessions get a last_seen_at.

const statements = (file: string) =>
  readFileSync(join(migrationsFolder, file), 'utf8')
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter((s) => s !== '')

describe('migration 0009 (email verification)', () => {
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

  test('default: accounts made before verification existed are verified afterwards', async () => {
    const files = readdirSync(migrationsFolder).filter((f) => /^\d{4}_.*\.sql$/.test(f)).sort()
    for (const file of files.filter((f) => f < '0009'))
      for (const statement of statements(file)) await client.query(statement)
    await client.query(`insert into accounts (email, password_hash, created_at) values ('old@example.com', 'x', '2026-01-02T03:04:05Z')`)
    await client.query(`insert into sessions (token_hash, account_id, csrf_token, expires_at) select '\\x01', id, 't', now() + interval '1 day' from accounts where email = 'old@example.com'`)
    for (const statement of statements('0009_account_tokens_request_limits.sql')) await client.query(statement)
    const { rows } = await client.query<{ email: string; verified: Date | null }>(`select email, email_verified_at as verified from accounts order by id`)
    expect(rows.find((r) => r.email === 'old@example.com')?.verified?.toISOString()).toBe('2026-01-02T03:04:05.000Z')
    const sessions = await client.query<{ seen: Date }>('select last_seen_at as seen from sessions')
    expect(sessions.rows).toHaveLength(1)
    expect(sessions.rows[0]?.seen).toBeInstanceOf(Date)
  })
})
