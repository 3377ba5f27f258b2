import type { Hex } from '@uncle-rpc/chain'
import { type PgBouncer, requireTool, startPgBouncer } from '@uncle-rpc/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { zeroUsageCounts } from './accounts/queries/usage.js'
import { addDailyAndHourlyUsage } from './accounts/queries/usageHourly.js'
import { createDb } from './client.js'
import { blockKnown } from './chain/queries/blockKnown.js'
import { getUncleAnswers } from './chain/queries/uncleAnswers.js'
import { registerNetwork } from './chain/queries/networks.js'
import { holdLock, type OpenTestDatabase, openTestDatabase } from './testing.js'

// The rpc's statements through a real PgBouncer 1.18 in transaction mode: each statement may run
// on another server connection, which lacks a named statement or has it from another client; and
// the pool's statement_timeout, a startup parameter PgBouncer drops, must still bound a write
// transaction (boundedTransaction's SET LOCAL).

describe.skipIf(requireTool('pgbouncer', 'pgbouncer') === undefined)("the rpc's statements through PgBouncer in transaction mode", () => {
  let database: OpenTestDatabase
  let bouncer: PgBouncer
  const warnings: object[] = []

  beforeAll(async () => {
    database = await openTestDatabase({ max: 1 })
    await registerNetwork(database.db, { name: 'mainnet', chainId: 1n })
    bouncer = await startPgBouncer({ poolMode: 'transaction', poolSize: 2, ignoreStartupParameters: ['statement_timeout'] })
  })

  afterAll(async () => {
    await bouncer?.stop()
    await database?.close()
  })

  test('behavior: getUncleAnswers and blockKnown answer every call, from a pool of 4 on 2 server connections; the switch to unnamed statements is told once', async () => {
    const logger = { info: () => undefined, warn: (entry: object) => void warnings.push(entry) }
    const pooled = createDb({ url: bouncer.url(new URL(database.url).pathname.slice(1)), max: 4, logger })
    try {
      const hash = (i: number) => `0x${i.toString(16).padStart(64, '0')}` as Hex
      const calls = Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0
          ? getUncleAnswers(pooled.db, { network: 'mainnet', keys: [{ blockHash: hash(i), index: 0 }], totalDifficulty: 'null' }).then((rows) => rows[0] ?? null)
          : blockKnown(pooled.db, { network: 'mainnet', blockHash: hash(i) }),
      )
      const settled = await Promise.allSettled(calls)
      expect(settled.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason))).toEqual([])
      expect(settled.map((s) => (s as PromiseFulfilledResult<unknown>).value)).toEqual(calls.map((_, i) => (i % 2 === 0 ? null : false)))
      expect(warnings.filter((w) => JSON.stringify(w).includes('named prepared statements do not survive'))).toHaveLength(1)
    } finally {
      await pooled.close()
    }
  })

  test('behavior: a usage flush blocked by a lock on usage_daily is cancelled at the statement timeout (57014) while the lock is still held', async () => {
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
