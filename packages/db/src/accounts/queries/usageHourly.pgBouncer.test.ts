import { type PgBouncer, requireTool, startPgBouncer } from '@uncle-rpc/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createDb } from '../../client.js'
import { holdLock, type OpenTestDatabase, openTestDatabase } from '../../testing.js'
import { zeroUsageCounts } from './usage.js'
import { addDailyAndHourlyUsage } from './usageHourly.js'

// The rpc's usage flush through a real PgBouncer 1.18 in transaction mode, which drops the pool's
// statement_timeout: a flush waiting on a lock must still be cancelled by Postgres at the
// statement timeout (boundedTransaction's SET LOCAL), not hold a server connection until the
// client's query timeout or the lock's holder lets go.

describe.skipIf(requireTool('pgbouncer', 'pgbouncer') === undefined)('the usage flush through PgBouncer in transaction mode', () => {
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

  test('behavior: a flush blocked by a lock on usage_daily is cancelled at the statement timeout (57014) while the lock is still held', async () => {
    const pooled = createDb({ url: bouncer.url(new URL(database.url).pathname.slice(1)), max: 2, timeouts: { statementTimeoutMs: 500, queryTimeoutMs: 60_000 } })
    // Another session (a migration, a vacuum full) holds usage_daily, directly on Postgres, for up to 10 s.
    const lock = await holdLock(database.db, (tx) => tx.execute(sql`lock table usage_daily in access exclusive mode`))
    try {
      const started = Date.now()
      const outcome = await addDailyAndHourlyUsage(pooled.db, {
        daily: [{ keyId: 1, day: '2026-11-27', ...zeroUsageCounts(), requests: 1 }],
        hourly: [],
      }).then(
        () => ({ written: true, heldStill: lock.held() }),
        (error: unknown) => ({ error, heldStill: lock.held() }),
      )
      // Cancelled by the server while the holder still held the lock, not after it let go.
      expect(outcome).toMatchObject({ heldStill: true, error: { cause: { code: '57014' } } })
      expect(Date.now() - started).toBeLessThan(5_000)
    } finally {
      await lock.release()
      await pooled.close()
    }
  })
})
