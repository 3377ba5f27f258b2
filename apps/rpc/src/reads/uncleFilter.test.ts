import { randomBytes } from 'node:crypto'
import { type Hex, headerFromRpc, uncleSize } from '@uncle-rpc/chain'
import { createLogger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { insertBlocksWithUncles, markRangeIndexed, registerNetwork } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { describeWithFixtures, readFixtureJson } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { derivedUncles, expectedResultJson, mainnetBlocksFixture, mainnetUnclesDerived } from '../_test/seed.js'
import { post } from '../_test/server.js'
import { createRpcServer } from '../server.js'
import { createFindUncle, primaryReads } from './store.js'
import { createUncleFilter, filterApplicationName, probeApplicationName, type UncleFilter } from './uncleFilter.js'

// The null filter on a real Postgres: loaded at start, kept current by the writes' notifications,
// across a lost connection; and the RPC answering null from it without a read.

type FixtureBlock = { header: unknown; totalDifficulty: Hex; uncles: unknown[] }
const logger = createLogger({ level: 'fatal', name: 'null-filter-test' })
const randomHash = () => `0x${randomBytes(32).toString('hex')}` as Hex

function blocksBetween(from: number, to: number) {
  return readFixtureJson<{ blocks: FixtureBlock[] }>(mainnetBlocksFixture)
    .blocks.filter((b) => {
      const n = Number(BigInt((b.header as { number: Hex }).number))
      return n >= from && n <= to
    })
    .map((b) => ({
      header: headerFromRpc(b.header),
      totalDifficulty: BigInt(b.totalDifficulty),
      uncles: b.uncles.map((u) => {
        const uncle = headerFromRpc(u)
        return { ...uncle, size: uncleSize(uncle) }
      }),
    }))
}

/** What the indexer's writer does: rows and the range marker in one transaction. */
async function writeRange(db: Db, from: number, to: number): Promise<Hex[]> {
  const blocks = blocksBetween(from, to)
  await db.transaction(async (tx) => {
    await insertBlocksWithUncles(tx, { network: 'mainnet', blocks })
    await markRangeIndexed(tx, { network: 'mainnet', from: BigInt(from), to: BigInt(to) })
  })
  return blocks.map((b) => b.header.hash)
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<number> {
  const started = performance.now()
  while (!check()) {
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return performance.now() - started
}

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'null filter', () => {
  let database: OpenTestDatabase
  let db: Db
  const filters: UncleFilter[] = []

  beforeAll(async () => {
    database = await openTestDatabase({ max: 4 })
    db = database.db
    await registerNetwork(db, { name: 'mainnet', chainId: 1n })
    await insertBlocksWithUncles(db, { network: 'mainnet', blocks: blocksBetween(0, 2999) })
  })

  afterAll(async () => {
    await Promise.all(filters.map((f) => f.stop()))
    await database.close()
  })

  const startFilter = async () => {
    const filter = createUncleFilter({ url: database.url, networks: ['mainnet'], logger, heartbeatMs: 200 })
    filters.push(filter)
    await filter.start()
    return filter
  }

  test('default: loaded at start: every block with uncles may be, unknown hashes and other networks are never "absent" wrongly', async () => {
    const filter = await startFilter()
    expect(filter.current).toBe(true)
    const within = derivedUncles().filter((u) => u.blockNumber <= 2999)
    expect(within.length).toBeGreaterThan(400)
    for (const u of within) expect(filter.absent('mainnet', u.blockHash)).toBe(false)
    for (let i = 0; i < 1000; i++) expect(filter.absent('mainnet', randomHash())).toBe(true)
    expect(filter.absent('classic', randomHash())).toBe(false)
  })

  test('behavior: a committed range is there within 1 s; while the connection is lost nothing is "absent"; a range committed meanwhile is there once it is back', async () => {
    const filter = await startFilter()
    const fresh = await writeRange(db, 3000, 4999)
    const ms = await waitFor(() => fresh.every((h) => !filter.absent('mainnet', h)), 1000)
    expect(ms).toBeLessThan(1000)
    await db.$client.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [filterApplicationName])
    await waitFor(() => !filter.current, 5000)
    expect(filter.absent('mainnet', randomHash())).toBe(false)
    const meanwhile = await writeRange(db, 5000, 8191)
    await waitFor(() => filter.current, 15_000)
    for (const h of meanwhile) expect(filter.absent('mainnet', h)).toBe(false)
    expect(filter.absent('mainnet', randomHash())).toBe(true)
  })

  test('behavior: without its probe connection it cannot prove it hears: nothing is "absent" until both are back', async () => {
    const filter = await startFilter()
    expect(filter.current).toBe(true)
    await db.$client.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [probeApplicationName])
    await waitFor(() => !filter.current, 5000)
    expect(filter.absent('mainnet', randomHash())).toBe(false)
    await waitFor(() => filter.current, 15_000)
    expect(filter.absent('mainnet', randomHash())).toBe(true)
  })

  test('behavior: the RPC answers an unknown hash null without a read, and a known uncle exactly', async () => {
    let lookups = 0
    const findUncle = createFindUncle(primaryReads(db))
    const filter = createUncleFilter({ url: database.url, networks: ['mainnet'], logger })
    const rpc = createRpcServer(
      {
        db,
        logger,
        uncleFilter: filter,
        findUncle: (key) => {
          lookups++
          return findUncle(key)
        },
      },
      { networks: [{ name: 'mainnet', confirmations: 0 }], cacheEntries: 0, dbDeadlineMs: 5000 },
    )
    const { port } = await rpc.listen(0, '127.0.0.1')
    try {
      const { key } = await createApiKey(db, { plan: 'team', label: 'null filter' })
      const call = (hash: Hex) =>
        post(`http://127.0.0.1:${port}/v3/${key}`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getUncleByBlockHashAndIndex', params: [hash, '0x0'] }))
      for (let i = 0; i < 20; i++) expect((await call(randomHash())).body).toBe('{"jsonrpc":"2.0","id":1,"result":null}')
      expect(lookups).toBe(0)
      const known = derivedUncles()[0] as ReturnType<typeof derivedUncles>[number]
      const answer = await post(
        `http://127.0.0.1:${port}/v3/${key}`,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getUncleByBlockHashAndIndex', params: [known.blockHash, known.index] }),
      )
      expect(answer.body).toBe(`{"jsonrpc":"2.0","id":1,"result":${expectedResultJson(known.result)}}`)
      expect(lookups).toBe(1)
    } finally {
      await rpc.close()
    }
  })
})
