import { eq, sql } from 'drizzle-orm'
import { describe, expect, test } from 'vitest'
import type { Db } from '../../client.js'
import { signInFailures } from '../schema.js'
import { useTestDatabase } from '../../testing.js'
import { clearSignInFailures, pruneSignInFailures, recordSignInFailure, type SignInLockPolicy, signInWaitSeconds } from './signInFailures.js'

let db: Db
useTestDatabase({ max: 4 }, (database) => (db = database.db))

const policy: SignInLockPolicy = { freeFailures: 3, baseLockMs: 60_000, maxLockMs: 300_000, windowMs: 900_000 }
const wait = (...keys: string[]) => signInWaitSeconds(db, { keys })
const fail = (key: string) => recordSignInFailure(db, { key, policy })
const row = async (key: string) => (await db.select().from(signInFailures).where(eq(signInFailures.key, key)))[0]
/** Moves a key's failure and lock back in time, as if `ms` had passed. */
const age = (key: string, ms: number) =>
  db
    .update(signInFailures)
    .set({
      lastFailure: sql`${signInFailures.lastFailure} - ${ms}::float8 * interval '1 millisecond'`,
      lockedUntil: sql`${signInFailures.lockedUntil} - ${ms}::float8 * interval '1 millisecond'`,
    })
    .where(eq(signInFailures.key, key))

describe('sign-in failures', () => {
  test('default: free failures, then a lock that doubles per failure up to the maximum; the longest lock of the keys counts', async () => {
    for (let i = 0; i < 2; i++) await fail('e:a')
    expect(await wait('e:a')).toBe(0)
    await fail('e:a')
    expect(await wait('e:a')).toBeGreaterThanOrEqual(59)
    expect(await wait('e:a')).toBeLessThanOrEqual(60)
    await fail('e:a')
    expect(await wait('e:a')).toBeGreaterThanOrEqual(119)
    for (let i = 0; i < 5; i++) await fail('e:a')
    expect(await wait('e:a')).toBeLessThanOrEqual(300)
    expect(await wait('e:a')).toBeGreaterThanOrEqual(299)
    expect(await wait('a:nowhere', 'e:a')).toBeGreaterThanOrEqual(299)
    expect(await wait('a:nowhere')).toBe(0)
    await clearSignInFailures(db, { key: 'e:a' })
    expect(await wait('e:a')).toBe(0)
    expect(await row('e:a')).toBeUndefined()
  })

  test('behavior: concurrent failures from several connections all count', async () => {
    await Promise.all(Array.from({ length: 12 }, () => fail('a:10.0.0.1')))
    expect((await row('a:10.0.0.1'))?.failures).toBe(12)
  })

  test('behavior: a failure after the window (and after its lock) starts again at 1; prune forgets only such rows', async () => {
    for (let i = 0; i < 3; i++) await fail('e:old')
    for (let i = 0; i < 3; i++) await fail('e:locked')
    await fail('e:recent')
    // e:old: 16 min on, past the window and its 1-min lock; e:locked: still locked for the window.
    await age('e:old', 16 * 60_000)
    await age('e:locked', 30_000)
    expect(await wait('e:old')).toBe(0)
    expect(await pruneSignInFailures(db, { windowMs: policy.windowMs })).toBe(1)
    expect(await row('e:old')).toBeUndefined()
    expect((await row('e:locked'))?.failures).toBe(3)
    for (let i = 0; i < 3; i++) await fail('e:old2')
    await age('e:old2', 16 * 60_000)
    await fail('e:old2')
    expect((await row('e:old2'))?.failures).toBe(1)
    expect(await wait('e:old2')).toBe(0)
  })
})
