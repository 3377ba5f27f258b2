import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'
import { createDb, type Db, type Tx } from './client.js'
import { migrateDatabase } from './migrate.js'

export {
  type DerivedUncle,
  derivedUncles,
  expectedResultJson,
  loadMainnetBlocks,
  mainnetBlocksFixture,
  mainnetUnclesDerived,
  seedMainnetUncles,
} from './chain/testFixtures.js'

export type TestDatabase = {
  url: string
  /** Drops the database (if it exists) and deletes the Redis keys of its name (its job queues, rate limits). */
  drop: () => Promise<void>
  /** Drops only the database, as an operator would; its Redis keys stay. */
  dropDatabase: () => Promise<void>
}
export type CreateTestDatabaseParameters = {
  /** false: only pick the unique name, so the code under test creates the database. Default true. */
  create?: boolean
}

/**
 * Deletes the keys that processes using database `name` leave in Redis (`uncle-rpc:<name>:*`:
 * job queues, the head lease, rate limits), on `$REDIS_URL` (default the local Redis).
 */
export async function deleteRedisKeysOf(name: string): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1, lazyConnect: true })
  redis.on('error', () => undefined)
  try {
    await redis.connect()
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `uncle-rpc:${name}:*`, 'COUNT', 1000)
      cursor = next
      if (keys.length > 0) await redis.unlink(...keys)
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
}

/**
 * A fresh, migrated database for one test file, named `uncle_rpc_test_<pid>_<random>`, on the server
 * of `$TEST_DATABASE_URL` (default the local `postgres://postgres@127.0.0.1:5432/postgres`).
 * `drop()` removes it (if it exists), closing any connections still open, and the Redis keys of
 * its name. Use in beforeAll / afterAll.
 */
export async function createTestDatabase({ create = true }: CreateTestDatabaseParameters = {}): Promise<TestDatabase> {
  const base = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')
  const name = `uncle_rpc_test_${process.pid}_${randomBytes(4).toString('hex')}`
  const url = new URL(base)
  url.pathname = `/${name}`
  const dropDatabase = async () => {
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
  const drop = async () => {
    await dropDatabase()
    await deleteRedisKeysOf(name)
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
  return { url: url.toString(), drop, dropDatabase }
}

export type OpenTestDatabase = {
  url: string
  db: Db
  /** Drops only the database, as an operator would; its Redis keys stay. */
  dropDatabase: () => Promise<void>
  /** Closes the pool and drops the database. */
  close: () => Promise<void>
}

/** A fresh, migrated database with a pool of `max` connections on it: the one setup of DB tests. */
export async function openTestDatabase({ max = 4 }: { max?: number } = {}): Promise<OpenTestDatabase> {
  const database = await createTestDatabase()
  const { db, close } = createDb({ url: database.url, max })
  return {
    url: database.url,
    db,
    dropDatabase: database.dropDatabase,
    close: async () => {
      await close()
      await database.drop()
    },
  }
}

/**
 * The DB test file's setup in one call: a fresh database opened before the file's tests
 * (`onOpen` receives it) and closed and dropped after them.
 */
export function useTestDatabase(options: { max?: number }, onOpen: (database: OpenTestDatabase) => void): void {
  let opened: OpenTestDatabase | undefined
  beforeAll(async () => {
    opened = await openTestDatabase(options)
    onOpen(opened)
  })
  afterAll(() => opened?.close())
}

/** A lock held by another session of the test's (see `holdLock`). */
export type HeldLock = {
  /** True while the holding transaction is still open. */
  held: () => boolean
  /** Ends the holding transaction and waits for it. */
  release: () => Promise<void>
}

/**
 * Opens a transaction on `db` (directly on Postgres, not through the pooler under test), takes a
 * lock in it with `take`, and keeps it open until released or `maxMs` passed: the "another
 * writer holds the lock" of the statement-timeout tests. Resolves once the lock is held.
 */
export async function holdLock(db: Db, take: (tx: Tx) => Promise<unknown>, { maxMs = 10_000 }: { maxMs?: number } = {}): Promise<HeldLock> {
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => (release = resolve))
  let locked: () => void = () => undefined
  const lockTaken = new Promise<void>((resolve) => (locked = resolve))
  let open = true
  const holder = db.transaction(async (tx) => {
    await take(tx)
    locked()
    await Promise.race([released, new Promise((resolve) => setTimeout(resolve, maxMs))])
  })
  void holder.finally(() => (open = false)).catch(() => undefined)
  await Promise.race([lockTaken, holder])
  return {
    held: () => open,
    release: async () => {
      release()
      await holder
    },
  }
}
