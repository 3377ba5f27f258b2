import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { createDb, type Db } from './client.js'
import { migrateDatabase } from './migrate.js'

export type TestDatabase = { url: string; drop: () => Promise<void> }
export type CreateTestDatabaseParameters = {
  /** false: only pick the unique name, so the code under test creates the database. Default true. */
  create?: boolean
}

/**
 * A fresh, migrated database for one test file, named `uncle_rpc_test_<pid>_<random>`, on the server
 * of `$TEST_DATABASE_URL` (default the local `postgres://postgres@127.0.0.1:5432/postgres`).
 * `drop()` removes it (if it exists), closing any connections still open. Use in beforeAll / afterAll.
 */
export async function createTestDatabase({ create = true }: CreateTestDatabaseParameters = {}): Promise<TestDatabase> {
  const base = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')
  const name = `uncle_rpc_test_${process.pid}_${randomBytes(4).toString('hex')}`
  const url = new URL(base)
  url.pathname = `/${name}`
  const drop = async () => {
    const admin = new URL(base)
    admin.pathname = '/postgres'
    const client = new pg.Client({ connectionString: admin.toString() })
    await client.connect()
    try {
      await client.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`)
    } finally {
      await client.end()
    }
  }
  if (create) {
    try {
      await migrateDatabase({ url: url.toString() })
    } catch (error) {
      // Note: the caller never gets `drop` when this throws, so the half-made database goes now.
      await drop()
      throw error
    }
  }
  return { url: url.toString(), drop }
}

export type OpenTestDatabase = { url: string; db: Db; /** Closes the pool and drops the database. */ close: () => Promise<void> }

/** A fresh, migrated database with a pool of `max` connections on it: the one setup of DB tests. */
export async function openTestDatabase({ max = 4 }: { max?: number } = {}): Promise<OpenTestDatabase> {
  const database = await createTestDatabase()
  const { db, close } = createDb({ url: database.url, max })
  return {
    url: database.url,
    db,
    close: async () => {
      await close()
      await database.drop()
    },
  }
}
