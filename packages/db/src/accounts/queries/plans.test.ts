import type { Hex } from '@uncle-rpc/chain'
import { describe, expect, test } from 'vitest'
import type { Db } from '../../client.js'
import { apiKeyPlans } from '../schema.js'
import { useTestDatabase } from '../../testing.js'
import { insertApiKey } from './apiKeys.js'
import { findKeyPolicy, listKeyPolicies, listPlans, setApiKeyFailover, setApiKeyLimits, updatePlan } from './plans.js'

let db: Db
useTestDatabase({ max: 2 }, (database) => (db = database.db))

const hash = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`

describe('plans and key policies', () => {
  test('default: the migration seeds the five plans', async () => {
    const rows = await listPlans(db)
    expect(rows.map((p) => p.name)).toEqual([...apiKeyPlans])
    expect(rows.map((p) => [p.name, p.requestsPerSecond, p.requestsPerDay, p.maxBatchSize, p.failoverAllowed])).toMatchInlineSnapshot(`
      [
        [
          "core",
          10,
          100000,
          100,
          false,
        ],
        [
          "developer",
          25,
          500000,
          500,
          false,
        ],
        [
          "team",
          100,
          2000000,
          1000,
          false,
        ],
        [
          "growth",
          500,
          20000000,
          1000,
          true,
        ],
        [
          "custom",
          1000,
          100000000,
          1000,
          true,
        ],
      ]
    `)
  })

  test('behavior: a key gets its plan limits, its own overrides win, null clears them', async () => {
    const row = await insertApiKey(db, { keyHash: hash(1), prefix: 'k1', plan: 'team', rpsLimit: 5 })
    expect(await findKeyPolicy(db, { keyHash: hash(1) })).toEqual({
      id: row.id,
      keyHash: hash(1),
      plan: 'team',
      revokedAt: null,
      requestsPerSecond: 5,
      requestsPerDay: 2_000_000,
      maxBatchSize: 1000,
      failoverAllowed: false,
      failover: false,
      networks: null,
      allowedOrigins: [],
      allowedUserAgents: [],
      secretHash: null,
    })
    expect(await setApiKeyLimits(db, { keyHash: hash(1), rpsLimit: null, dailyLimit: 20, batchLimit: 7 })).toBe(true)
    expect(await setApiKeyFailover(db, { keyHash: hash(1), failover: true })).toBe(true)
    expect(await findKeyPolicy(db, { keyHash: hash(1) })).toMatchObject({ requestsPerSecond: 100, requestsPerDay: 20, maxBatchSize: 7, failover: true })
    expect((await listKeyPolicies(db)).map((k) => k.keyHash)).toEqual([hash(1)])
  })

  test('behavior: updatePlan changes only the given limits, and keys follow', async () => {
    const updated = await updatePlan(db, { name: 'team', requestsPerSecond: 42, failoverAllowed: true })
    expect(updated).toMatchObject({ name: 'team', requestsPerSecond: 42, requestsPerDay: 2_000_000, failoverAllowed: true })
    expect(await findKeyPolicy(db, { keyHash: hash(1) })).toMatchObject({ requestsPerSecond: 42, failoverAllowed: true })
    await updatePlan(db, { name: 'team', requestsPerSecond: 100, failoverAllowed: false })
  })

  test('error: unknown key, bad limits', async () => {
    expect(await findKeyPolicy(db, { keyHash: hash(9) })).toBeNull()
    expect(await setApiKeyLimits(db, { keyHash: hash(9), rpsLimit: 3 })).toBe(false)
    expect(await setApiKeyFailover(db, { keyHash: hash(9), failover: true })).toBe(false)
    await expect(setApiKeyLimits(db, { keyHash: hash(1), rpsLimit: 0 })).rejects.toThrow()
    await expect(updatePlan(db, { name: 'core', maxBatchSize: 0 })).rejects.toThrow()
  })
})
