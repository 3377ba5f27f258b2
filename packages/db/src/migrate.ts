import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import pg from 'pg'
import type { DbLogger } from './client.js'
import { MigrationError } from './errors.js'

/** The repository's migrations folder (drizzle-kit output), found from this file, not from the cwd. */
export const migrationsFolder = resolve(dirname(fileURLToPath(import.meta.url)), '../../../migrations')

export type MigrateDatabaseParameters = {
  url: string
  logger?: DbLogger
  /** Bounds of connecting, of the wait for another migrate's lock and of each statement; default {@link defaultMigrateTimeouts}. */
  timeouts?: MigrateTimeouts | undefined
}
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

/**
 * Whether connecting failed because the database does not exist: Postgres says 3D000; PgBouncer
 * passes the server's message on as a protocol violation (08P01), with the same text.
 */
function isDatabaseMissing(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: string; message?: string }
  if (code === '3D000') return true
  return code === '08P01' && message === `database "${name}" does not exist`
}

/**
 * Creates the database named in `url` if it does not exist. Safe when several processes start at
 * once. Only when the database is missing does it connect to the server's `postgres` database
 * (through a pooler too, when the pooler passes that database on).
 */
async function ensureDatabase(url: string, name: string, timeouts: typeof defaultMigrateTimeouts): Promise<boolean> {
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeouts.connectTimeoutMs })
  let pooler: boolean
  try {
    await probe.connect()
    return false
  } catch (error) {
    if (!isDatabaseMissing(error, name)) throw error
    pooler = (error as { code?: string }).code === '08P01'
  } finally {
    await probe.end().catch(() => undefined)
  }
  const admin = new URL(url)
  admin.pathname = '/postgres'
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: timeouts.connectTimeoutMs, query_timeout: timeouts.statementTimeoutMs })
  try {
    await client.connect()
  } catch (error) {
    await client.end().catch(() => undefined)
    throw new MigrationError(
      pooler
        ? `Database "${name}" does not exist, and it cannot be created through this pooler (its "postgres" database does not answer): create it on the server (\`createdb ${name}\`, or CREATE DATABASE on a direct connection), then run migrate again`
        : `Database "${name}" does not exist, and the server's "postgres" database does not answer to create it: create it (\`createdb ${name}\`), then run migrate again`,
      error,
    )
  }
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

/** Default bounds of `migrateDatabase`. */
export const defaultMigrateTimeouts = { connectTimeoutMs: 10_000, lockTimeoutMs: 60_000, statementTimeoutMs: 600_000 }

// drizzle's migrations table, which drizzle-kit and drizzle's migrator read and write.
const migrationsTable = 'drizzle.__drizzle_migrations'
const lockNotAvailable = '55P03'
const queryCanceled = '57014'

/**
 * Applies the pending migrations in one transaction that first takes a transaction-scoped
 * advisory lock: ended by the commit or rollback whatever happens to the connection, so no pooled
 * server connection (PgBouncer in transaction mode) keeps it after us, and every check of what is
 * applied is made under it. drizzle's own migrator reads the applied list before its transaction
 * and takes no lock, so two concurrent runs could both apply a migration.
 */
async function applyMigrations(client: pg.Client, timeouts: typeof defaultMigrateTimeouts): Promise<number> {
  const migrations = readMigrationFiles({ migrationsFolder })
  await client.query('begin')
  try {
    // Note: SET LOCAL, inside the transaction: a pooler cannot drop it or leave it on another client's connection.
    await client.query(`set local lock_timeout = ${timeouts.lockTimeoutMs}`)
    await client.query('select pg_advisory_xact_lock($1)', [migrationLockKey.toString()])
    await client.query(`set local lock_timeout = 0; set local statement_timeout = ${timeouts.statementTimeoutMs}`)
    await client.query(`create schema if not exists drizzle;
      create table if not exists ${migrationsTable} (id serial primary key, hash text not null, created_at bigint)`)
    const { rows } = await client.query<{ created_at: string | null }>(`select created_at::text from ${migrationsTable} order by created_at desc limit 1`)
    const last = rows[0]?.created_at == null ? undefined : Number(rows[0].created_at)
    let applied = 0
    for (const migration of migrations) {
      if (last !== undefined && last >= migration.folderMillis) continue
      for (const statement of migration.sql) await client.query(statement)
      await client.query(`insert into ${migrationsTable} (hash, created_at) values ($1, $2)`, [migration.hash, migration.folderMillis])
      applied++
    }
    await client.query('commit')
    return applied
  } catch (error) {
    await client.query('rollback').catch(() => undefined)
    throw error
  }
}

/** Why applying failed, in the operator's words where we know them. */
function applyFailure(database: string, error: unknown, timeouts: typeof defaultMigrateTimeouts): MigrationError {
  const code = (error as { code?: string }).code
  if (code === lockNotAvailable)
    return new MigrationError(
      `Could not apply migrations to database "${database}": another \`uncle-rpc migrate\` has held the migration lock for more than ${timeouts.lockTimeoutMs} ms (an advisory lock, pg_locks.locktype = 'advisory'); run it again once that one has ended`,
      error,
    )
  if (code === queryCanceled || (error as Error).message === 'Query read timeout')
    return new MigrationError(`Could not apply migrations to database "${database}": a statement ran longer than ${timeouts.statementTimeoutMs} ms (nothing was applied)`, error)
  return new MigrationError(`Could not apply migrations to database "${database}" (nothing was applied)`, error)
}

export type MigrateTimeouts = Partial<typeof defaultMigrateTimeouts>

/**
 * Creates the database if missing, then applies pending migrations from {@link migrationsFolder}
 * in one transaction under a transaction-scoped advisory lock, so concurrent starters apply each
 * one once. Every step is bounded: connecting, the wait for the lock, each statement. Idempotent.
 */
export async function migrateDatabase({ url, logger, timeouts: given }: MigrateDatabaseParameters): Promise<MigrateDatabaseReturnType> {
  const timeouts = { ...defaultMigrateTimeouts, ...given }
  const database = databaseName(url)
  let created: boolean
  try {
    created = await ensureDatabase(url, database, timeouts)
  } catch (error) {
    if (error instanceof MigrationError) throw error
    throw new MigrationError(`Could not create database "${database}"`, error)
  }
  if (created) logger?.info({ msg: 'created database', database })

  const total = readMigrationFiles({ migrationsFolder }).length
  const client = new pg.Client({
    connectionString: url,
    // Note: PgBouncer waits server_login_retry (15 s by default) after the failed login to the missing database before it tries it again.
    connectionTimeoutMillis: created ? timeouts.connectTimeoutMs + 20_000 : timeouts.connectTimeoutMs,
    // Note: the client's own bound, 5 s past the server's, for a server that cannot cancel (hung, or a pooler's dropped setting).
    query_timeout: Math.max(timeouts.lockTimeoutMs, timeouts.statementTimeoutMs) + 5000,
  })
  try {
    await client.connect()
  } catch (error) {
    await client.end().catch(() => undefined)
    throw new MigrationError(`Could not connect to database "${database}"`, error)
  }
  try {
    const applied = await applyMigrations(client, timeouts)
    logger?.info({ msg: 'migrations applied', database, applied, total })
    return { database, created, applied, total }
  } catch (error) {
    throw applyFailure(database, error, timeouts)
  } finally {
    await client.end().catch(() => undefined)
  }
}
