import { createDb, type Db } from '@uncle-rpc/db'
import { type OpenTestDatabase, useTestDatabase } from '@uncle-rpc/db/testing'
import { describeWithFixtures } from '@uncle-rpc/testing'
import { beforeAll, expect, test } from 'vitest'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived, seedMainnetUncles } from '../_test/seed.js'
import { createFindUncle, defaultMaxLookupsPerStatement as maxLookupsPerStatement, primaryReads, type ReadSource } from './store.js'
import { LookupCancel } from './lookup.js'

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'createFindUncle', () => {
  let database: OpenTestDatabase
  let db: Db
  const lines = derivedUncles()

  useTestDatabase({ max: 2 }, (opened) => {
    database = opened
    db = opened.db
  })
  beforeAll(() => seedMainnetUncles(db))

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
      expect(found[i]?.json).toContain(`"hash":"${line.result.hash}"`)
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

  /** Reads through the primary, each held until `release()`: the statements "in flight" and the lookups each carried. */
  function held(): { source: ReadSource; sizes: number[]; release: () => void; waiting: () => number } {
    const primary = primaryReads(db)
    const gates: (() => void)[] = []
    const sizes: number[] = []
    return {
      source: {
        read: async (query) => {
          await new Promise<void>((resolve) => gates.push(resolve))
          return primary.read(query)
        },
      },
      sizes,
      release: () => gates.splice(0).forEach((open) => open()),
      waiting: () => gates.length,
    }
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve))

  test('behavior: lookups arriving while every statement is in flight join the next one, whatever their turn', async () => {
    const reads = held()
    const find = createFindUncle(reads.source, { maxStatements: 2, onStatement: (_s, lookups) => reads.sizes.push(lookups) })
    const ask = (line: (typeof lines)[number]) => find({ network: 'mainnet', blockHash: line.blockHash, index: Number(line.index) })
    const first = [ask(lines[0]!), ask(lines[1]!)]
    await turn()
    const second = ask(lines[2]!)
    await turn()
    expect(reads.waiting()).toBe(2)
    // Ten more lookups, each in its own turn, while both statements are in flight: none is sent yet.
    const later: Promise<unknown>[] = []
    for (const line of lines.slice(3, 13)) {
      later.push(ask(line))
      await turn()
    }
    expect(reads.waiting()).toBe(2)
    reads.release()
    await Promise.all([...first, second])
    // The first statement to end sends all ten in one statement.
    await turn()
    expect(reads.waiting()).toBe(1)
    reads.release()
    const found = (await Promise.all(later)) as { json: string }[]
    expect(found.map((f) => JSON.parse(f.json).hash)).toEqual(lines.slice(3, 13).map((l) => l.result.hash))
    // Note: the first two statements may end in either order (two connections).
    expect([...reads.sizes.slice(0, 2)].sort()).toEqual([1, 2])
    expect(reads.sizes[2]).toBe(10)
  })

  test('behavior: a queued lookup whose signal aborts is not sent and rejects with the reason', async () => {
    const reads = held()
    const find = createFindUncle(reads.source, { maxStatements: 1, onStatement: (_s, lookups) => reads.sizes.push(lookups) })
    const ask = (line: (typeof lines)[number], cancel?: LookupCancel) => find({ network: 'mainnet', blockHash: line.blockHash, index: Number(line.index), cancel })
    const first = ask(lines[0]!)
    await turn()
    const giveUp = new LookupCancel()
    const dropped = ask(lines[1]!, giveUp)
    const kept = ask(lines[2]!)
    await turn()
    giveUp.abort(new Error('deadline'))
    await expect(dropped).rejects.toThrow('deadline')
    reads.release()
    await first
    await turn()
    reads.release()
    expect((await kept)?.json).toContain(`"hash":"${lines[2]!.result.hash}"`)
    expect(reads.sizes).toEqual([1, 1])
  })

  test('error: a failed statement fails each lookup of it', async () => {
    const ended = createDb({ url: database.url, max: 1 })
    await ended.close()
    const find = createFindUncle(primaryReads(ended.db))
    const results = await Promise.allSettled(lines.slice(0, 3).map((line) => find({ network: 'mainnet', blockHash: line.blockHash, index: 0 })))
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected'])
  })
})
