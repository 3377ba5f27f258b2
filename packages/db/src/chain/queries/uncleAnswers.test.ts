import { type HashedHeader, type Hex, rpcUncleJson, uncleSize } from '@uncle-rpc/chain'
import { describeWithFixtures, readFixtureJsonl } from '@uncle-rpc/testing'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import fc from 'fast-check'
import pg from 'pg'
import { beforeAll, describe, expect, test } from 'vitest'
import { createDb, type Db } from '../../client.js'
import { migrateDatabase, migrationsFolder } from '../../migrate.js'
import { loadMainnetBlocks, mainnetBlocksFixture, mainnetUnclesDerived } from '../testFixtures.js'
import { createTestDatabase, type OpenTestDatabase, useTestDatabase } from '../../testing.js'
import { insertBlocksWithUncles } from './blocks.js'
import { registerNetwork } from './networks.js'
import { getUncleAnswers } from './uncleAnswers.js'

// The answer text Postgres writes against the one rpcUncleJson writes: the recorded mainnet
// answers, and generated headers of every fork with quantities past int8's range.

let database: OpenTestDatabase
let db: Db
useTestDatabase({ max: 2 }, (opened) => {
  database = opened
  db = opened.db
})

beforeAll(async () => {
  await registerNetwork(db, { name: 'mainnet', chainId: 1n })
  await registerNetwork(db, { name: 'generated', chainId: 1337n })
})

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'getUncleAnswers: mainnet 0..8191', () => {
  type Line = { blockHash: Hex; index: Hex; blockNumber: number | string; result: Record<string, unknown> }
  let lines: Line[] = []
  beforeAll(async () => {
    await insertBlocksWithUncles(db, { network: 'mainnet', blocks: loadMainnetBlocks() })
    lines = readFixtureJsonl<Line>(mainnetUnclesDerived)
  })

  test('behavior: all 1,410 uncles are geth’s exact answer, with and without totalDifficulty', async () => {
    const keys = lines.map((line) => ({ blockHash: line.blockHash, index: Number(line.index) }))
    const omitted = await getUncleAnswers(db, { network: 'mainnet', keys, totalDifficulty: 'omit' })
    const nulled = await getUncleAnswers(db, { network: 'mainnet', keys, totalDifficulty: 'null' })
    expect(omitted).toHaveLength(1410)
    for (const [i, line] of lines.entries()) {
      expect(omitted[i]?.json).toBe(JSON.stringify(line.result))
      expect(omitted[i]?.blockNumber).toBe(BigInt(line.blockNumber))
      const withNull = { ...line.result, totalDifficulty: null }
      expect(JSON.parse(nulled[i]!.json)).toEqual(withNull)
      expect(nulled[i]?.json).toBe(JSON.stringify(Object.fromEntries(Object.entries(withNull).sort(([a], [b]) => (a < b ? -1 : 1)))))
    }
  })

  test('behavior: each stored answer is kept whole in its row, neither compressed nor moved out of it', async () => {
    const { rows } = await db.$client.query<{ rows: string; whole: string }>(
      `select count(*) as rows, count(*) filter (where pg_column_size(answer) = octet_length(answer) + 4) as whole from uncles where network = 'mainnet'`,
    )
    expect(rows[0]).toEqual({ rows: '1410', whole: '1410' })
  })

  test('behavior: uncles written before migration 0012 get their stored answers when it is applied', async () => {
    // Note: a database at migration 0011 (the schema before the stored answers), indexed, then migrated as an operator would.
    const older = await createTestDatabase({ create: false })
    const name = new URL(older.url).pathname.slice(1)
    const admin = new pg.Client({ connectionString: older.url.replace(`/${name}`, '/postgres') })
    await admin.connect()
    await admin.query(`create database ${pg.escapeIdentifier(name)}`).finally(() => admin.end())
    const opened = createDb({ url: older.url, max: 1 })
    try {
      await opened.pool.query(`create schema drizzle; create table drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`)
      for (const migration of readMigrationFiles({ migrationsFolder }).slice(0, 12)) {
        for (const statement of migration.sql) await opened.pool.query(statement)
        await opened.pool.query('insert into drizzle.__drizzle_migrations (hash, created_at) values ($1, $2)', [migration.hash, migration.folderMillis])
      }
      const before = await opened.pool.query(`select count(*)::int as n from information_schema.columns where table_name = 'uncles' and column_name = 'answer'`)
      expect(before.rows[0]).toEqual({ n: 0 })
      await registerNetwork(opened.db, { name: 'mainnet', chainId: 1n })
      await insertBlocksWithUncles(opened.db, { network: 'mainnet', blocks: loadMainnetBlocks() })
      expect(await migrateDatabase({ url: older.url })).toMatchObject({ applied: 1 })
      const keys = lines.map((line) => ({ blockHash: line.blockHash, index: Number(line.index) }))
      const omitted = await getUncleAnswers(opened.db, { network: 'mainnet', keys, totalDifficulty: 'omit' })
      for (const [i, line] of lines.entries()) expect(omitted[i]?.json).toBe(JSON.stringify(line.result))
      const whole = await opened.pool.query(`select count(*)::int as n from uncles where pg_column_size(answer) = octet_length(answer) + 4`)
      expect(whole.rows[0]).toEqual({ n: 1410 })
    } finally {
      await opened.close()
      await older.drop()
    }
  }, 60_000)

  test('behavior: one entry per key in order: unknown, past the end, out of range, other network, repeated and upper-case keys', async () => {
    const known = lines.slice(0, 50).map((line) => ({ blockHash: line.blockHash, index: Number(line.index) }))
    const unknown = { blockHash: `0x${'00'.repeat(32)}` as Hex, index: 0 }
    const pastEnd = { blockHash: known[0]!.blockHash, index: 5 }
    const outOfRange = { blockHash: known[0]!.blockHash, index: 40_000 }
    const upper = { blockHash: `0x${known[1]!.blockHash.slice(2).toUpperCase()}` as Hex, index: known[1]!.index }
    const keys = [unknown, ...known, pastEnd, outOfRange, upper, known[0]!]
    const single = createDb({ url: database.url, max: 1 })
    try {
      const found = await getUncleAnswers(single.db, { network: 'mainnet', keys, totalDifficulty: 'omit' })
      expect(found).toHaveLength(keys.length)
      expect(found[0]).toBeNull()
      for (const [i] of known.entries()) expect(found[i + 1]?.json).toBe(JSON.stringify(lines[i]!.result))
      expect(found.slice(known.length + 1, known.length + 3)).toEqual([null, null])
      expect(found.at(-2)).toEqual(found[2])
      expect(found.at(-1)).toEqual(found[1])
      expect(await getUncleAnswers(single.db, { network: 'sepolia', keys: known, totalDifficulty: 'null' })).toEqual(known.map(() => null))
      expect(await getUncleAnswers(single.db, { network: 'mainnet', keys: [], totalDifficulty: 'null' })).toEqual([])
      // One named statement per totalDifficulty form, planned once per connection.
      const { rows } = await single.pool.query<{ name: string }>('select name from pg_prepared_statements order by name')
      expect(rows.map((r) => r.name)).toEqual(['uncle_rpc_uncle_answers', 'uncle_rpc_uncle_answers_omit'])
    } finally {
      await single.close()
    }
  })
})

describe('getUncleAnswers: generated headers', () => {
  const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex)
  const uint256 = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), fc.constantFrom(0n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 256n - 1n))
  // Every fork prefix: 0 = Frontier, London, Shanghai, Cancun, 4 = Prague (each needs the fields before it).
  const header = fc
    .record({
      parentHash: hex(32),
      sha3Uncles: hex(32),
      miner: hex(20),
      stateRoot: hex(32),
      transactionsRoot: hex(32),
      receiptsRoot: hex(32),
      logsBloom: hex(256),
      difficulty: uint256,
      number: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
      gasLimit: uint256,
      gasUsed: uint256,
      timestamp: uint256,
      extraData: fc.integer({ min: 0, max: 97 }).chain(hex),
      mixHash: hex(32),
      nonce: hex(8),
      baseFeePerGas: uint256,
      withdrawalsRoot: hex(32),
      blobGasUsed: uint256,
      excessBlobGas: uint256,
      parentBeaconBlockRoot: hex(32),
      requestsHash: hex(32),
      hash: hex(32),
      forks: fc.integer({ min: 0, max: 4 }),
    })
    .map(({ forks, ...all }) => {
      const optional = ['baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash'] as const
      const kept = [[], ['baseFeePerGas'], ['withdrawalsRoot'], ['blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot'], ['requestsHash']].slice(0, forks + 1).flat()
      const uncle: Record<string, unknown> = { ...all }
      for (const name of optional) if (!kept.includes(name)) delete uncle[name]
      return uncle as HashedHeader
    })

  test('behavior: Postgres writes rpcUncleJson’s bytes for every fork, any uint256 quantity and extraData length (200 headers)', async () => {
    const uncles = fc.sample(header, { numRuns: 200, seed: 20261126 })
    const blocks = uncles.map((uncle, i) => ({
      header: { ...uncle, hash: `0x${i.toString(16).padStart(64, 'e')}` as Hex, number: BigInt(i) },
      uncles: [{ ...uncle, size: uncleSize(uncle) }],
    }))
    await insertBlocksWithUncles(db, { network: 'generated', blocks })
    const keys = blocks.map((block) => ({ blockHash: block.header.hash, index: 0 }))
    for (const totalDifficulty of ['omit', 'null'] as const) {
      const found = await getUncleAnswers(db, { network: 'generated', keys, totalDifficulty })
      for (const [i, uncle] of uncles.entries()) {
        expect(found[i]?.json).toBe(rpcUncleJson(uncle, { totalDifficulty }))
        expect(found[i]?.blockNumber).toBe(BigInt(i))
      }
    }
    // The sample reaches past int8 (the '#' form) and every fork prefix.
    expect(uncles.some((u) => u.difficulty >= 2n ** 63n)).toBe(true)
    expect(new Set(uncles.map((u) => Object.keys(u).length)).size).toBe(5)
  })
})
