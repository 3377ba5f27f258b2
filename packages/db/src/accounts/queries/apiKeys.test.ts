import type { Hex } from '@uncle-rpc/chain'
import { describe, expect, test } from 'vitest'
import type { Db } from '../../client.js'
import { type ApiKeyPlan, apiKeyPlans } from '../schema.js'
import { useTestDatabase } from '../../testing.js'
import { findApiKey, insertApiKey, listApiKeys, revokeApiKey, setApiKeyPlan, touchApiKeys } from './apiKeys.js'

let db: Db
useTestDatabase({ max: 2 }, (database) => (db = database.db))

const hash = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`

describe('api keys', () => {
  test('default: insert, find, list', async () => {
    const row = await insertApiKey(db, { keyHash: hash(1), prefix: 'abcd1234', plan: 'core', label: 'first' })
    expect(row).toMatchObject({
      keyHash: hash(1),
      prefix: 'abcd1234',
      plan: 'core',
      label: 'first',
      lastUsedAt: null,
      revokedAt: null,
    })
    expect(row.createdAt).toBeInstanceOf(Date)
    expect(await findApiKey(db, { keyHash: hash(1) })).toEqual(row)
    expect(await findApiKey(db, { keyHash: hash(99) })).toBeNull()
    await insertApiKey(db, { keyHash: hash(2), prefix: 'ef001122', plan: 'team' })
    expect((await listApiKeys(db)).map((k) => [k.prefix, k.label])).toEqual([
      ['abcd1234', 'first'],
      ['ef001122', null],
    ])
  })

  test('error: duplicate hash, unknown plan', async () => {
    await expect(insertApiKey(db, { keyHash: hash(1), prefix: 'x', plan: 'core' })).rejects.toThrow()
    // An invalid plan on purpose, to hit the check constraint.
    await expect(insertApiKey(db, { keyHash: hash(3), prefix: 'x', plan: 'gold' as ApiKeyPlan })).rejects.toThrow()
  })

  test('behavior: every plan of apiKeyPlans passes the check constraint', async () => {
    for (const [i, plan] of apiKeyPlans.entries()) await insertApiKey(db, { keyHash: hash(100 + i), prefix: 'p', plan })
  })

  test('behavior: revoke keeps the first time; set-plan; unknown keys report false', async () => {
    const first = new Date('2030-01-01T00:00:00Z')
    expect(await revokeApiKey(db, { keyHash: hash(2), at: first })).toBe(true)
    expect(await revokeApiKey(db, { keyHash: hash(2), at: new Date('2031-01-01T00:00:00Z') })).toBe(true)
    expect((await findApiKey(db, { keyHash: hash(2) }))?.revokedAt).toEqual(first)
    expect(await revokeApiKey(db, { keyHash: hash(98) })).toBe(false)
    expect(await setApiKeyPlan(db, { keyHash: hash(1), plan: 'growth' })).toBe(true)
    expect((await findApiKey(db, { keyHash: hash(1) }))?.plan).toBe('growth')
    expect(await setApiKeyPlan(db, { keyHash: hash(98), plan: 'growth' })).toBe(false)
  })

  test('behavior: touch sets last_used_at in one statement and never moves it back', async () => {
    const later = new Date('2030-06-01T00:00:00Z')
    await touchApiKeys(db, { keyHashes: [hash(1), hash(2), hash(98)], at: later })
    await touchApiKeys(db, { keyHashes: [hash(1)], at: new Date('2030-01-01T00:00:00Z') })
    await touchApiKeys(db, { keyHashes: [], at: new Date() })
    expect((await findApiKey(db, { keyHash: hash(1) }))?.lastUsedAt).toEqual(later)
    expect((await findApiKey(db, { keyHash: hash(2) }))?.lastUsedAt).toEqual(later)
  })
})
