import { eq, sql } from 'drizzle-orm'
import { describe, expect, test } from 'vitest'
import type { Db } from '../../client.js'
import { requestLimits } from '../schema.js'
import { useTestDatabase } from '../../testing.js'
import { hitRequestLimit, pruneRequestLimits } from './requestLimits.js'

let db: Db
useTestDatabase({ max: 4 }, (database) => (db = database.db))

const policy = { limit: 3, windowMs: 60_000 }
const hit = (key: string) => hitRequestLimit(db, { key, policy })
/** Moves a key's window back in time, as if `ms` had passed. */
const age = (key: string, ms: number) =>
  db
    .update(requestLimits)
    .set({ windowStart: sql`${requestLimits.windowStart} - ${ms}::float8 * interval '1 millisecond'` })
    .where(eq(requestLimits.key, key))

describe('request limits', () => {
  test('default: `limit` hits per window, then refused with the seconds left; a new window starts afresh', async () => {
    for (let i = 0; i < 3; i++) expect(await hit('signup:1.2.3.4')).toEqual({ allowed: true, retryAfter: 0 })
    const refused = await hit('signup:1.2.3.4')
    expect(refused.allowed).toBe(false)
    expect(refused.retryAfter).toBeGreaterThanOrEqual(59)
    expect(refused.retryAfter).toBeLessThanOrEqual(60)
    expect((await hit('signup:5.6.7.8')).allowed).toBe(true)
    await age('signup:1.2.3.4', 45_000)
    expect((await hit('signup:1.2.3.4')).retryAfter).toBeLessThanOrEqual(15)
    await age('signup:1.2.3.4', 20_000)
    expect(await hit('signup:1.2.3.4')).toEqual({ allowed: true, retryAfter: 0 })
  })

  test('behavior: concurrent hits all count (one statement each)', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => hit('signin:9.9.9.9')))
    expect(results.filter((r) => r.allowed)).toHaveLength(3)
  })

  test('behavior: prune deletes windows that ended', async () => {
    await hit('old')
    await hit('fresh')
    await age('old', 120_000)
    expect(await pruneRequestLimits(db, { windowMs: 60_000 })).toBe(1)
    expect((await db.select({ key: requestLimits.key }).from(requestLimits)).map((r) => r.key).sort()).toEqual(['fresh', 'signin:9.9.9.9', 'signup:1.2.3.4', 'signup:5.6.7.8'].sort())
  })
})
