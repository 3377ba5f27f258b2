import type { Hex } from '@uncle-rpc/chain'
import { describe, expect, test } from 'vitest'
import type { Db } from '../../client.js'
import { useTestDatabase } from '../../testing.js'
import { blockKnown } from './blockKnown.js'

let db: Db
useTestDatabase({ max: 2 }, (database) => (db = database.db))

const hash = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`

describe('blockKnown', () => {
  test('default: false for an unindexed hash', async () => {
    expect(await blockKnown(db, { network: 'mainnet', blockHash: hash(5) })).toBe(false)
  })
})
