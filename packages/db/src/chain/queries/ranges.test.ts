import { describe, expect, test } from 'vitest'
import type { Db } from '../../client.js'
import { sql } from 'drizzle-orm'
import { useTestDatabase } from '../../testing.js'
import { registerNetwork } from './networks.js'
import { blocksIndexedSince, compactIndexedRanges, findGaps, listIndexedRanges, markRangeIndexed } from './ranges.js'

let db: Db
useTestDatabase({ max: 4 }, (database) => (db = database.db))

async function network(name: string, ranges: [number, number][]): Promise<string> {
  await registerNetwork(db, { name, chainId: 1n })
  for (const [from, to] of ranges) await markRangeIndexed(db, { network: name, from: BigInt(from), to: BigInt(to) })
  return name
}

const r = (from: number, to: number) => ({ from: BigInt(from), to: BigInt(to) })

describe('listIndexedRanges', () => {
  test('default', async () => {
    const net = await network('list', [
      [500, 999],
      [0, 499],
      [2000, 2499],
      [1000, 1200],
      [1100, 1150],
      [1150, 1300],
      [3000, 3000],
    ])
    expect(await listIndexedRanges(db, { network: net })).toEqual([r(0, 1300), r(2000, 2499), r(3000, 3000)])
  })

  test('args: unknown network', async () => {
    expect(await listIndexedRanges(db, { network: 'nothing' })).toEqual([])
  })

  test('behavior: marking twice is harmless', async () => {
    const net = await network('twice', [
      [0, 9],
      [0, 9],
    ])
    expect(await listIndexedRanges(db, { network: net })).toEqual([r(0, 9)])
  })

  test('error: to before from is refused', async () => {
    await registerNetwork(db, { name: 'backwards', chainId: 1n })
    await expect(markRangeIndexed(db, { network: 'backwards', from: 5n, to: 4n })).rejects.toThrow()
  })
})

describe('findGaps', () => {
  test('default', async () => {
    const net = await network('gaps', [
      [10, 19],
      [30, 39],
      [40, 44],
    ])
    expect(await findGaps(db, { network: net, from: 0n, to: 60n })).toEqual([r(0, 9), r(20, 29), r(45, 60)])
  })

  test('args: window inside, at the edges of, and across ranges', async () => {
    const net = await network('windows', [
      [10, 19],
      [30, 39],
    ])
    expect(await findGaps(db, { network: net, from: 12n, to: 18n })).toEqual([])
    expect(await findGaps(db, { network: net, from: 19n, to: 30n })).toEqual([r(20, 29)])
    expect(await findGaps(db, { network: net, from: 15n, to: 35n })).toEqual([r(20, 29)])
    expect(await findGaps(db, { network: net, from: 40n, to: 40n })).toEqual([r(40, 40)])
    expect(await findGaps(db, { network: net, from: 5n, to: 4n })).toEqual([])
    expect(await findGaps(db, { network: 'nothing', from: 0n, to: 3n })).toEqual([r(0, 3)])
  })

  test('behavior: block numbers beyond 2^53', async () => {
    const big = 2n ** 60n
    await registerNetwork(db, { name: 'big', chainId: 1n })
    await markRangeIndexed(db, { network: 'big', from: big, to: big + 10n })
    expect(await findGaps(db, { network: 'big', from: big - 1n, to: big + 11n })).toEqual([
      { from: big - 1n, to: big - 1n },
      { from: big + 11n, to: big + 11n },
    ])
  })
})

describe('compactIndexedRanges', () => {
  test('default', async () => {
    const net = await network('compact', [
      [0, 99],
      [100, 199],
      [150, 160],
      [300, 399],
      [500, 599],
    ])
    await network('compact-other', [
      [0, 9],
      [10, 19],
    ])
    const before = await listIndexedRanges(db, { network: net })
    expect(await compactIndexedRanges(db, { network: net })).toEqual({ deleted: 3, inserted: 1 })
    expect(await listIndexedRanges(db, { network: net })).toEqual(before)
    // Note: already compact: nothing to do; other networks untouched.
    expect(await compactIndexedRanges(db, { network: net })).toEqual({ deleted: 0, inserted: 0 })
    expect(await compactIndexedRanges(db, { network: 'compact-other' })).toEqual({ deleted: 2, inserted: 1 })
  })

  test('behavior: concurrent with writers and with itself, coverage is never lost', async () => {
    await registerNetwork(db, { name: 'busy', chainId: 1n })
    const writes: Promise<unknown>[] = []
    for (let i = 0; i < 200; i++) {
      writes.push(markRangeIndexed(db, { network: 'busy', from: BigInt(i * 10), to: BigInt(i * 10 + 9) }))
      if (i % 20 === 0) writes.push(compactIndexedRanges(db, { network: 'busy' }))
    }
    await Promise.all(writes)
    expect(await listIndexedRanges(db, { network: 'busy' })).toEqual([r(0, 1999)])
    await compactIndexedRanges(db, { network: 'busy' })
    expect(await listIndexedRanges(db, { network: 'busy' })).toEqual([r(0, 1999)])
  })
})

describe('blocksIndexedSince', () => {
  test('default: the blocks of ranges marked within the window; a compaction does not count old blocks as new', async () => {
    const net = await network('recent', [
      [0, 999],
      [1000, 1999],
    ])
    // Two old ranges (an hour ago) and one marked now.
    await db.execute(sql`update indexed_ranges set completed_at = now() - interval '1 hour' where network = ${net}`)
    await markRangeIndexed(db, { network: net, from: 2000n, to: 2099n })
    expect(await blocksIndexedSince(db, { network: net, seconds: 60 })).toBe(100n)
    await compactIndexedRanges(db, { network: net })
    expect(await listIndexedRanges(db, { network: net })).toEqual([r(0, 2099)])
    // Merged into one row with the island's earliest completion: no longer "recent" at all.
    expect(await blocksIndexedSince(db, { network: net, seconds: 60 })).toBe(0n)
    expect(await blocksIndexedSince(db, { network: net, seconds: 7200 })).toBe(2100n)
  })
})
