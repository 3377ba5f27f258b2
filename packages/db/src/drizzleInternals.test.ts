import { sql } from 'drizzle-orm'
import { type PostgresServer, startPostgresServer } from '@uncle-rpc/testing'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createDb } from './client.js'
import { transactionClient } from './drizzleInternals.js'

// drizzleInternals.ts reaches into drizzle-orm's sessions; these tests fail when an upgrade moves
// what it uses. A private Postgres, so that one test can freeze it (SIGSTOP) without touching others.

describe('drizzle internals on a real Postgres', () => {
  let postgres: PostgresServer

  beforeAll(async () => {
    postgres = await startPostgresServer()
  }, 60_000)

  afterAll(async () => {
    await postgres?.remove()
  })

  test('behavior: a transaction commits, rolls back on a throw, nests, takes a config, and transactionClient is its own connection', async () => {
    const { db, close } = createDb({ url: postgres.url(), max: 2 })
    try {
      await db.execute(sql`create table if not exists t (n int)`)
      await db.execute(sql`truncate t`)
      await db.transaction(async (tx) => {
        await tx.execute(sql`insert into t values (1)`)
        const inner = await transactionClient(tx).query<{ n: number }>('select count(*)::int as n from t')
        // The raw client sees the transaction's own uncommitted row: it is the same connection.
        expect(inner.rows[0]!.n).toBe(1)
      })
      await expect(
        db.transaction(async (tx) => {
          await tx.execute(sql`insert into t values (2)`)
          throw new Error('undo')
        }),
      ).rejects.toThrow('undo')
      await db.transaction(async (tx) => {
        await tx.execute(sql`insert into t values (3)`)
        await tx.transaction(async (nested) => nested.execute(sql`insert into t values (4)`)).catch(() => undefined)
        await expect(
          tx.transaction(async (nested) => {
            await nested.execute(sql`insert into t values (5)`)
            throw new Error('undo nested')
          }),
        ).rejects.toThrow('undo nested')
      })
      const level = await db.transaction(async (tx) => (await tx.execute<{ l: string }>(sql`select current_setting('transaction_isolation') as l`)).rows[0]!.l, {
        isolationLevel: 'serializable',
      })
      expect(level).toBe('serializable')
      const rows = (await db.execute<{ n: number }>(sql`select n from t order by n`)).rows.map((r) => r.n)
      expect(rows).toEqual([1, 3, 4])
    } finally {
      await close()
    }
  })

  test('behavior: a transaction whose begin times out while Postgres hangs gives its connection back (drizzle alone keeps it for good)', async () => {
    // One connection: a kept one would make every later query wait for a connection that never comes.
    const { db, pool, close } = createDb({ url: postgres.url(), max: 1, timeouts: { queryTimeoutMs: 300, statementTimeoutMs: 0, connectTimeoutMs: 1000 } })
    try {
      await db.execute(sql`select 1`)
      postgres.freeze()
      try {
        for (let i = 0; i < 3; i++) await expect(db.transaction(async (tx) => tx.execute(sql`select 1`))).rejects.toThrow()
      } finally {
        postgres.thaw()
      }
      expect(pool.totalCount).toBeLessThanOrEqual(1)
      const after = await db.transaction(async (tx) => (await tx.execute<{ one: number }>(sql`select 1 as one`)).rows[0]!.one)
      expect(after).toBe(1)
      expect(pool.waitingCount).toBe(0)
    } finally {
      await close()
    }
  }, 30_000)

  test('behavior: a transaction whose connection is cut fails with the error, which reaches no process-wide handler; the pool goes on', async () => {
    // Note: pg emits 'error' on a client whose connection ends unexpectedly; the pool listens only
    // to idle clients, so a transaction's client without a listener of its own crashed the process.
    const uncaught: unknown[] = []
    const onUncaught = (error: unknown) => uncaught.push(error)
    process.on('uncaughtException', onUncaught)
    const { db, pool, close } = createDb({ url: postgres.url(), max: 2 })
    try {
      const pids: number[] = []
      const running = db.transaction(async (tx) => {
        pids.push(((await tx.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`)).rows[0]!).pid)
        await tx.execute(sql`select pg_sleep(5)`)
      })
      // Note: taken before the backend is ended: its error may reach the transaction's socket before
      // pg_terminate_backend's answer reaches the pool's, and a rejection with no handler yet is unhandled.
      const outcome = running.then(
        () => undefined,
        (error: unknown) => error,
      )
      await vi.waitFor(() => expect(pids).toHaveLength(1), { timeout: 5000 })
      await pool.query('select pg_terminate_backend($1)', [pids[0]])
      expect(await outcome).toBeInstanceOf(Error)
      // Let the connection's end and error events run.
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(uncaught).toEqual([])
      expect((await db.execute<{ one: number }>(sql`select 1 as one`)).rows[0]!.one).toBe(1)
    } finally {
      process.off('uncaughtException', onUncaught)
      await close()
    }
  }, 30_000)
})
