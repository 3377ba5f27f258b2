import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import type { DbLogger } from './client.js'
import { MigrationError } from './errors.js'

/** The repository's migrations folder (drizzle-kit output), found from this file, not from the cwd. */
export const migrationsFolder = resolve(dirname(fileURLToPath(import.meta.url)), '../../../migrations')

export type MigrateDatabaseParameters = { url: string; logger?: DbLogger }
export type MigrateDatabaseReturnType = {
  /** Database name from the URL. */
  database: string
  /** True if this call created the database. */
  created: boolean
  /** Migrations applied by this call. */
  applied: number
  /** Migrations in the folder (all applied once this returns). */
  total: number
}

// Postgres error codes: duplicate_database, and the unique violation a concurrent CREATE DATABASE can raise.
const alreadyExists = new Set(['42P04', '23505'])
// Note: any fixed bigint works; it only has to be the same for every uncle-rpc process.
const migrationLockKey = 0x756e636c65n

function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.slice(1))
  if (name === '') throw new MigrationError(`DATABASE_URL names no database: ${new URL(url).host}`, undefined)
  return name
}

const databaseMissing = '3D000'

/**
 * Creates the database named in `url` if it does not exist. Safe when several processes start at
 * once. Only when the database is missing does it connect to the server's `postgres` database.
 */
async function ensureDatabase(url: string, name: string): Promise<boolean> {
  const probe = new pg.Client({ connectionString: url })
  try {
    await probe.connect()
    return false
  } catch (error) {
    if ((error as { code?: string }).code !== databaseMissing) throw error
  } finally {
    await probe.end()
  }
  const admin = new URL(url)
  admin.pathname = '/postgres'
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  try {
    await client.query(`create database ${pg.escapeIdentifier(name)}`)
    return true
  } catch (error) {
    // Note: two starters may both find no database; the loser's CREATE fails and that is fine.
    if (alreadyExists.has((error as { code?: string }).code ?? '')) return false
    throw error
  } finally {
    await client.end()
  }
}

/**
 * Creates the database if missing, then applies pending migrations from {@link migrationsFolder}
 * with drizzle's migrator, under an advisory lock so concurrent starters apply each one once. Idempotent.
 */
export async function migrateDatabase({ url, logger }: MigrateDatabaseParameters): Promise<MigrateDatabaseReturnType> {
  const database = databaseName(url)
  let created: boolean
  try {
    created = await ensureDatabase(url, database)
  } catch (error) {
    throw new MigrationError(`Could not create database "${database}"`, error)
  }
  if (created) logger?.info({ msg: 'created database', database })

  const total = readMigrationFiles({ migrationsFolder }).length
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('select pg_advisory_lock($1)', [migrationLockKey.toString()])
    const count = async (): Promise<number> => {
      // Note: Postgres resolves every table a statement names before running it, so the
      // existence check and the count must be two statements.
      const { rows } = await client.query<{ exists: boolean }>(
        `select to_regclass('drizzle.__drizzle_migrations') is not null as exists`,
      )
      if (!rows[0]?.exists) return 0
      const counted = await client.query<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations')
      return counted.rows[0]?.n ?? 0
    }
    const before = await count()
    await migrate(drizzle({ client }), { migrationsFolder })
    const applied = (await count()) - before
    logger?.info({ msg: 'migrations applied', database, applied, total })
    return { database, created, applied, total }
  } catch (error) {
    throw new MigrationError(`Could not apply migrations to database "${database}"`, error)
  } finally {
    // Note: ending the session releases the advisory lock.
    await client.end()
  }
}
