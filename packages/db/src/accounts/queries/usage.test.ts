import type { Hex } from '@uncle-rpc/chain'
import { describe, expect, test } from 'vitest'
import type { Db } from '../../client.js'
import { useTestDatabase } from '../../testing.js'
import { insertApiKey } from './apiKeys.js'
import { addUsage, listUsage, zeroUsageCounts } from './usage.js'

let db: Db
useTestDatabase({ max: 2 }, (database) => (db = database.db))

const hash = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`
const today = () => new Date().toISOString().slice(0, 10)

describe('usage_daily', () => {
  test('default: deltas add up, per key and day, refusals by reason too', async () => {
    const { id } = await insertApiKey(db, { keyHash: hash(1), prefix: 'k1', plan: 'core' })
    const day = today()
    await addUsage(db, [
      { keyId: id, day, ...zeroUsageCounts(), requests: 3, errors: 1, forwarded: 0, rateLimited: 0 },
      { keyId: id, day, ...zeroUsageCounts(), requests: 2, errors: 0, forwarded: 1, rateLimited: 1 },
      { keyId: id, day: '2020-01-01', ...zeroUsageCounts(), requests: 7, errors: 0, forwarded: 0, rateLimited: 0 },
    ])
    await addUsage(db, [{ keyId: id, day, ...zeroUsageCounts(), requests: 10, errors: 2, forwarded: 3, rateLimited: 4, refusedOrigin: 2, refusedSecret: 1 }])
    await addUsage(db, [{ keyId: id, day, ...zeroUsageCounts(), refusedOrigin: 1, refusedUserAgent: 5, refusedRevoked: 1, refusedNetwork: 3 }])
    await addUsage(db, [])
    expect(await listUsage(db, { keyHash: hash(1), days: 7 })).toEqual([
      {
        keyId: id,
        day,
        requests: 15,
        errors: 3,
        forwarded: 4,
        rateLimited: 5,
        refusedRevoked: 1,
        refusedNetwork: 3,
        refusedOrigin: 3,
        refusedUserAgent: 5,
        refusedSecret: 1,
      },
    ])
    expect(await listUsage(db, { keyHash: hash(1), days: 100_000 })).toHaveLength(2)
  })

  test('error: unknown key', async () => {
    expect(await listUsage(db, { keyHash: hash(2), days: 1 })).toBeNull()
  })
})
