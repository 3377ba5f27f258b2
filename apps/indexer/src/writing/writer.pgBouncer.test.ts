import { createDb } from '@uncle-rpc/db'
import { lockNetworkWrites } from '@uncle-rpc/db/chain'
import { holdLock, type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type PgBouncer, requireTool, startPgBouncer } from '@uncle-rpc/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { applyWritePlan } from './writer.js'

// The indexer's write transactions through a real PgBouncer 1.18 in transaction mode, which drops
// the pool's statement_timeout (ignore_startup_parameters, as docs/postgres.md says): a write
// waiting on a lock must still be cancelled by Postgres at the statement timeout, not wait for
// the client's query timeout (which closes the connection) or for the lock's holder.

const network = 'locked'

describe.skipIf(requireTool('pgbouncer', 'pgbouncer') === undefined)('the indexer writes through PgBouncer in transaction mode', () => {
  let database: OpenTestDatabase
  let bouncer: PgBouncer

  beforeAll(async () => {
    database = await openTestDatabase({ max: 2 })
    bouncer = await startPgBouncer({ poolMode: 'transaction', poolSize: 2, ignoreStartupParameters: ['statement_timeout', 'options'] })
  })

  afterAll(async () => {
    await bouncer?.stop()
    await database?.close()
  })

  test('behavior: a write blocked by a lock is cancelled at the statement timeout (57014) while the lock is still held', async () => {
    const pooled = createDb({ url: bouncer.url(new URL(database.url).pathname.slice(1)), max: 2, timeouts: { statementTimeoutMs: 500, queryTimeoutMs: 60_000 } })
    // Another writer (a reorg) holds the network's write lock, directly on Postgres, for up to 10 s.
    const lock = await holdLock(database.db, (tx) => lockNetworkWrites(tx, { network, mode: 'exclusive' }))
    try {
      const outcome = await applyWritePlan(pooled.db, { kind: 'append', network, runs: [] }).then(
        (written) => ({ written, heldStill: lock.held() }),
        (error: unknown) => ({ error, heldStill: lock.held() }),
      )
      // Cancelled by the server while the holder still held the lock: not written after it let go.
      expect(outcome).toMatchObject({ heldStill: true, error: { cause: { code: '57014' } } })
    } finally {
      await lock.release()
      await pooled.close()
    }
  })
})
