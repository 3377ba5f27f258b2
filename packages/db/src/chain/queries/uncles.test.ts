import { type HashedHeader, type Hex, hashHeader, headerFromRpc, toRpcUncle, uncleSize } from '@uncle-rpc/chain'
import { describeWithFixtures, readFixtureJson, readFixtureJsonl } from '@uncle-rpc/testing'
import { beforeAll, expect, test } from 'vitest'
import { createDb, type Db } from '../../client.js'
import { loadMainnetBlocks, mainnetBlocksFixture, mainnetUnclesDerived } from '../testFixtures.js'
import { type OpenTestDatabase, useTestDatabase } from '../../testing.js'
import { insertBlocksWithUncles } from './blocks.js'
import { registerNetwork } from './networks.js'
import { countUncles, getUncle, getUncles } from './uncles.js'

const ethereumTestsDerived = 'derived/geth_eth_getUncleByBlockHashAndIndex_ethereum-tests.json'

let database: OpenTestDatabase
let db: Db
useTestDatabase({ max: 4 }, (opened) => {
  database = opened
  db = opened.db
})

beforeAll(() => registerNetwork(db, { name: 'mainnet', chainId: 1n }))

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'getUncle: mainnet 0..8191', () => {
  test('behavior: all 1,410 uncles round-trip to geth’s exact answer', async () => {
    const blocks = loadMainnetBlocks()
    expect(await insertBlocksWithUncles(db, { network: 'mainnet', blocks })).toEqual({ blocks: 1295, uncles: 1410 })
    expect(await countUncles(db, { network: 'mainnet' })).toBe(1410)

    const lines = readFixtureJsonl<{ blockHash: Hex; index: Hex; result: Record<string, unknown> }>(mainnetUnclesDerived)
    expect(lines).toHaveLength(1410)
    for (const line of lines) {
      const uncle = await getUncle(db, { network: 'mainnet', blockHash: line.blockHash, index: Number(line.index) })
      if (!uncle) throw new Error(`missing uncle ${line.blockHash} ${line.index}`)
      expect(JSON.stringify(toRpcUncle(uncle, { totalDifficulty: 'omit' }, uncle.size))).toBe(JSON.stringify(line.result))
      expect(hashHeader(uncle)).toBe(uncle.hash)
    }
  })

  test('behavior: unknown block, index past the end, other network → null', async () => {
    const [first] = readFixtureJsonl<{ blockHash: Hex }>(mainnetUnclesDerived)
    const blockHash = first?.blockHash as Hex
    expect(await getUncle(db, { network: 'mainnet', blockHash, index: 0 })).not.toBeNull()
    expect(await getUncle(db, { network: 'mainnet', blockHash, index: 1 })).toBeNull()
    expect(await getUncle(db, { network: 'mainnet', blockHash, index: 40_000 })).toBeNull()
    expect(await getUncle(db, { network: 'sepolia', blockHash, index: 0 })).toBeNull()
    expect(await getUncle(db, { network: 'mainnet', blockHash: `0x${'00'.repeat(32)}`, index: 0 })).toBeNull()
  })

  test('behavior: runs as the named prepared statement of getUncles (one statement shape for one key or many)', async () => {
    const [first] = readFixtureJsonl<{ blockHash: Hex }>(mainnetUnclesDerived)
    const single = createDb({ url: database.url, max: 1 })
    try {
      await getUncle(single.db, { network: 'mainnet', blockHash: first?.blockHash as Hex, index: 0 })
      const { rows } = await single.pool.query<{ name: string }>('select name from pg_prepared_statements')
      expect(rows.map((r) => r.name)).toContain('uncle_rpc_get_uncles')
    } finally {
      await single.close()
    }
  })

  test('behavior: getUncles answers many keys in one statement, in order, as getUncle does', async () => {
    const lines = readFixtureJsonl<{ blockHash: Hex; index: Hex }>(mainnetUnclesDerived)
    const known = lines.slice(0, 300).map((line) => ({ blockHash: line.blockHash, index: Number(line.index) }))
    const unknown = { blockHash: `0x${'00'.repeat(32)}` as Hex, index: 0 }
    const pastEnd = { blockHash: known[0]!.blockHash, index: 5 }
    const outOfRange = { blockHash: known[0]!.blockHash, index: 40_000 }
    // Mixed case and a repeated key: each position gets its own answer.
    const upper = { blockHash: `0x${known[1]!.blockHash.slice(2).toUpperCase()}` as Hex, index: known[1]!.index }
    const keys = [unknown, ...known, pastEnd, outOfRange, upper, known[0]!]
    const single = createDb({ url: database.url, max: 1 })
    try {
      const found = await getUncles(single.db, { network: 'mainnet', keys })
      expect(found).toHaveLength(keys.length)
      expect(found[0]).toBeNull()
      for (const [i, key] of known.entries()) expect(found[i + 1]).toEqual(await getUncle(db, { network: 'mainnet', ...key }))
      expect(found.slice(known.length + 1, known.length + 3)).toEqual([null, null])
      expect(found.at(-2)).toEqual(found[2])
      expect(found.at(-1)).toEqual(found[1])
      expect(await getUncles(single.db, { network: 'sepolia', keys: known })).toEqual(known.map(() => null))
      expect(await getUncles(single.db, { network: 'mainnet', keys: [] })).toEqual([])
      const { rows } = await single.pool.query<{ name: string }>('select name from pg_prepared_statements')
      expect(rows.map((r) => r.name)).toContain('uncle_rpc_get_uncles')
    } finally {
      await single.close()
    }
  })

  test('behavior: works inside a transaction', async () => {
    const [first] = readFixtureJsonl<{ blockHash: Hex; result: { hash: Hex } }>(mainnetUnclesDerived)
    const hash = await db.transaction(
      async (tx) => (await getUncle(tx, { network: 'mainnet', blockHash: first?.blockHash as Hex, index: 0 }))?.hash,
    )
    expect(hash).toBe(first?.result.hash)
  })
})

describeWithFixtures([ethereumTestsDerived], 'getUncle: London uncles (ethereum/tests)', () => {
  test('behavior: baseFeePerGas round-trips', async () => {
    type Case = { test: string; blockHash: Hex; blockNumber: Hex; index: Hex; result: Record<string, unknown> }
    const cases = readFixtureJson<Case[]>(ethereumTestsDerived)
    const london = cases.filter((c) => 'baseFeePerGas' in c.result)
    expect(london).toHaveLength(2)
    await registerNetwork(db, { name: 'london', chainId: 1n })
    for (const c of london) {
      const uncle = headerFromRpc(c.result)
      expect(hashHeader(uncle)).toBe(uncle.hash)
      // Note: only the uncle is under test; its including block is stored with the fields the row needs.
      const block: HashedHeader = { ...uncle, hash: c.blockHash, number: BigInt(c.blockNumber) }
      await insertBlocksWithUncles(db, { network: 'london', blocks: [{ header: block, uncles: [{ ...uncle, size: uncleSize(uncle) }] }] })
      const stored = await getUncle(db, { network: 'london', blockHash: c.blockHash, index: Number(c.index) })
      expect(stored?.baseFeePerGas).toBe(uncle.baseFeePerGas)
      expect(JSON.stringify(toRpcUncle(stored as HashedHeader, { totalDifficulty: 'omit' }, stored?.size))).toBe(
        JSON.stringify(c.result),
      )
    }
  })
})
