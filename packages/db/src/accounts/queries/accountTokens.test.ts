import { sql } from 'drizzle-orm'
import { describe, expect, test } from 'vitest'
import type { Db } from '../../client.js'
import { accountTokens } from '../schema.js'
import { useTestDatabase } from '../../testing.js'
import { insertAccount } from './accounts.js'
import { deleteAccountTokens, insertAccountToken, pruneAccountTokens, takeAccountToken } from './accountTokens.js'

let db: Db
useTestDatabase({ max: 4 }, (database) => (db = database.db))

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const
const soon = () => new Date(Date.now() + 60_000)

describe('account tokens', () => {
  test('default: a token works once, for its purpose, until it expires', async () => {
    const account = (await insertAccount(db, { email: 'a@example.com', passwordHash: null }))!
    await insertAccountToken(db, { tokenHash: hash(1), accountId: account.id, purpose: 'reset', expiresAt: soon() })
    expect(await takeAccountToken(db, { tokenHash: hash(1), purpose: 'verify' })).toBeNull()
    const taken = await Promise.all([takeAccountToken(db, { tokenHash: hash(1), purpose: 'reset' }), takeAccountToken(db, { tokenHash: hash(1), purpose: 'reset' })])
    expect(taken.sort()).toEqual([account.id, null].sort())
    await insertAccountToken(db, { tokenHash: hash(2), accountId: account.id, purpose: 'verify', expiresAt: new Date(Date.now() - 1000) })
    expect(await takeAccountToken(db, { tokenHash: hash(2), purpose: 'verify' })).toBeNull()
    expect(await pruneAccountTokens(db)).toBe(1)
  })

  test('behavior: deleteAccountTokens drops the account\'s tokens of one purpose', async () => {
    const account = (await insertAccount(db, { email: 'b@example.com', passwordHash: null }))!
    await insertAccountToken(db, { tokenHash: hash(3), accountId: account.id, purpose: 'reset', expiresAt: soon() })
    await insertAccountToken(db, { tokenHash: hash(4), accountId: account.id, purpose: 'reset', expiresAt: soon() })
    await insertAccountToken(db, { tokenHash: hash(5), accountId: account.id, purpose: 'verify', expiresAt: soon() })
    await deleteAccountTokens(db, { accountId: account.id, purpose: 'reset' })
    const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(accountTokens)
    expect(row?.n).toBe(1)
  })
})
