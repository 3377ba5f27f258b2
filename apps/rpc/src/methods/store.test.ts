import { createDb, type Db } from '@uncle-rpc/db'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { haveFixtures } from '@uncle-rpc/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived, seedMainnetUncles } from '../_test/seed.js'
import { createFindUncle, maxLookupsPerStatement, primaryReads, type ReadSource } from './store.js'

describe.runIf(haveFixtures(mainnetBlocksFixture, mainnetUnclesDerived))('createFindUncle', () => {
  let database: TestDatabase
  let db: Db
  let closeDb: () => Promise<void>
  const lines = haveFixtures(mainnetUnclesDerived) ? derivedUncles() : []

  beforeAll(async () => {
    database = await createTestDatabase()
    ;({ db, close: closeDb } = createDb({ url: database.url, max: 2 }))
    await seedMainnetUncles(db)
  })

  afterAll(async () => {
    await closeDb?.()
    await database?.drop()
  })

  /** Reads through the primary, counted. */
  function counted(): { source: ReadSource; reads: () => number } {
    let reads = 0
    const primary = primaryReads(db)
    return { source: { read: (query) => (reads++, primary.read(query)) }, reads: () => reads }
  }

  test('behavior: lookups of one turn go to the database as one statement; each gets its own answer', async () => {
    const { source, reads } = counted()
    const find = createFindUncle(source)
    const some = lines.slice(0, 50)
    const found = await Promise.all([
      ...some.map((line) => find({ network: 'mainnet', blockHash: line.blockHash, index: Number(line.index) })),
      find({ network: 'mainnet', blockHash: `0x${'00'.repeat(32)}`, index: 0 }),
    ])
    expect(reads()).toBe(1)
    expect(found.at(-1)).toBeNull()
    for (const [i, line] of some.entries()) {
      expect(found[i]?.uncle.hash).toBe(line.result.hash)
      expect(found[i]?.blockNumber).toBe(BigInt(line.blockNumber))
    }
    // A later turn is a new statement.
    await find({ network: 'mainnet', blockHash: some[0]!.blockHash, index: 0 })
    expect(reads()).toBe(2)
  })

  test('behavior: one statement per network, and a burst past the cap is split', async () => {
    const { source, reads } = counted()
    const find = createFindUncle(source)
    const burst = Array.from({ length: maxLookupsPerStatement + 1 }, (_, i) => lines[i % lines.length]!)
    const found = await Promise.all([
      ...burst.map((line) => find({ network: 'mainnet', blockHash: line.blockHash, index: Number(line.index) })),
      find({ network: 'sepolia', blockHash: burst[0]!.blockHash, index: 0 }),
    ])
    expect(reads()).toBe(3)
    expect(found.at(-1)).toBeNull()
    expect(found.slice(0, -1).every((f) => f !== null)).toBe(true)
  })

  test('error: a failed statement fails each lookup of it', async () => {
    const ended = createDb({ url: database.url, max: 1 })
    await ended.close()
    const find = createFindUncle(primaryReads(ended.db))
    const results = await Promise.allSettled(lines.slice(0, 3).map((line) => find({ network: 'mainnet', blockHash: line.blockHash, index: 0 })))
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected'])
  })
})
