import { type Hex, toQuantity } from '@uncle-rpc/chain'
import { createLogger } from '@uncle-rpc/config'
import { createDb, type Db } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { insertBlocksWithUncles, recordReorg, setBlocksCanonical } from '@uncle-rpc/db/chain'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { describeWithFixtures } from '@uncle-rpc/testing'
import { createPublicClient, http, webSocket } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { derivedUncles, type Era1BlockSummary, expectedResultJson, mainnetEra1, mainnetUnclesDerived, seedMainnetEpoch0 } from './_test/seed.js'
import { openWs, post } from './_test/server.js'
import { createRpcServer, type RpcServer } from './server.js'

// The uncle family against every block of mainnet epoch 0 (the era1 fixture, blocks without
// uncles included), byte for byte, over HTTP, WebSocket and viem; and by-number answers through a reorg.

const call = (id: number, method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id, method, params })
const batch = (calls: string[]) => `[${calls.join(',')}]`
const result = (id: number, json: string) => `{"jsonrpc":"2.0","id":${id},"result":${json}}`
const error = (id: number, code: number, message: string) => `{"jsonrpc":"2.0","id":${id},"error":{"code":${code},"message":${JSON.stringify(message)}}}`
const unknownHash = `0x${'ab'.repeat(32)}` as Hex

/** Answers a batch of calls in chunks of 1,000 (the team plan's batch limit); the bodies' entries in order. */
async function answers(url: string, calls: string[]): Promise<string[]> {
  const out: string[] = []
  for (let i = 0; i < calls.length; i += 1000) {
    const res = await post(url, batch(calls.slice(i, i + 1000)))
    expect(res.status).toBe(200)
    // Note: entries are compact objects without nested arrays but `uncles:[]`; split at the top level.
    const entries = JSON.parse(res.body) as unknown[]
    expect(res.body).toBe(`[${entries.map((e) => JSON.stringify(e)).join(',')}]`)
    out.push(...entries.map((e) => JSON.stringify(e)))
  }
  return out
}

describeWithFixtures([mainnetEra1, mainnetUnclesDerived], 'the uncle family over mainnet epoch 0', () => {
  let database: TestDatabase
  let db: Db
  let closeDb: () => Promise<void>
  let rpc: RpcServer
  let url: string
  let wsUrl: string
  let blocks: Era1BlockSummary[]
  let key: string

  beforeAll(async () => {
    database = await createTestDatabase()
    ;({ db, close: closeDb } = createDb({ url: database.url, max: 4 }))
    blocks = await seedMainnetEpoch0(db)
    key = (await createApiKey(db, { plan: 'team' })).key
    rpc = createRpcServer(
      { db, logger: createLogger({ level: 'fatal', name: 'uncle-family-test' }) },
      { networks: [{ name: 'mainnet', chainId: 1, confirmations: 0 }], dbDeadlineMs: 5000, headsIntervalMs: 200, usageFlushMs: 3_600_000 },
    )
    const { port } = await rpc.listen(0, '127.0.0.1')
    url = `http://127.0.0.1:${port}/v3/${key}`
    wsUrl = `ws://127.0.0.1:${port}/ws/v3/${key}`
  }, 120_000)

  afterAll(async () => {
    await rpc?.close()
    await closeDb?.()
    await database?.drop()
  })

  test('default: every block’s eth_getUncleCountByBlockHash and eth_getUncleCountByBlockNumber is its recorded uncle count', async () => {
    expect(blocks).toHaveLength(8192)
    expect(blocks.filter((b) => b.uncleCount > 0)).toHaveLength(1295)
    const expected = blocks.map((b, id) => result(id, `"${toQuantity(b.uncleCount)}"`))
    expect(await answers(url, blocks.map((b, id) => call(id, 'eth_getUncleCountByBlockHash', [b.hash])))).toEqual(expected)
    expect(await answers(url, blocks.map((b, id) => call(id, 'eth_getUncleCountByBlockNumber', [toQuantity(b.number)])))).toEqual(expected)
    // Cached now (confirmations 0): the same bytes again.
    expect(await answers(url, blocks.slice(0, 500).map((b, id) => call(id, 'eth_getUncleCountByBlockHash', [b.hash])))).toEqual(expected.slice(0, 500))
  })

  test('default: eth_getUncleByBlockNumberAndIndex(n, i) is eth_getUncleByBlockHashAndIndex(hash(n), i) for every block, one index past the last included', async () => {
    const pairs = blocks.flatMap((b) => Array.from({ length: b.uncleCount + 1 }, (_, i) => ({ block: b, index: toQuantity(i) })))
    const byNumber = await answers(url, pairs.map((p, id) => call(id, 'eth_getUncleByBlockNumberAndIndex', [toQuantity(p.block.number), p.index])))
    const byHash = await answers(url, pairs.map((p, id) => call(id, 'eth_getUncleByBlockHashAndIndex', [p.block.hash, p.index])))
    expect(byNumber).toEqual(byHash)
    // …and both are geth's answers (with totalDifficulty null), null one past the last uncle.
    const derived = new Map(derivedUncles().map((u) => [`${u.blockHash}/${u.index}`, expectedResultJson(u.result)]))
    expect(byNumber).toEqual(pairs.map((p, id) => result(id, derived.get(`${p.block.hash}/${p.index}`) ?? 'null')))
    expect(byNumber.filter((a) => !a.endsWith('"result":null}'))).toHaveLength(1410)
  })

  test('behavior: unknown hashes and heights past the head are null; tags as geth on a chain without pending, safe or finalized blocks', async () => {
    const head = blocks.at(-1)!
    const calls = [
      call(1, 'eth_getUncleCountByBlockHash', [unknownHash]),
      call(2, 'eth_getUncleCountByBlockNumber', ['0x2000']),
      call(3, 'eth_getUncleByBlockNumberAndIndex', ['0x2000', '0x0']),
      call(4, 'eth_getUncleCountByBlockNumber', ['0x7fffffffffffffff']),
      call(5, 'eth_getUncleCountByBlockNumber', ['earliest']),
      call(6, 'eth_getUncleCountByBlockNumber', ['latest']),
      call(7, 'eth_getUncleByBlockNumberAndIndex', ['earliest', '0x0']),
      call(8, 'eth_getUncleCountByBlockNumber', ['pending']),
      call(9, 'eth_getUncleByBlockNumberAndIndex', ['safe', '0x0']),
      call(10, 'eth_getUncleCountByBlockNumber', ['finalized']),
      call(11, 'eth_getUncleByBlockNumberAndIndex', ['0x3', '0xffffffffffffffff']),
    ]
    expect(await answers(url, calls)).toEqual([
      result(1, 'null'),
      result(2, 'null'),
      result(3, 'null'),
      result(4, 'null'),
      result(5, '"0x0"'),
      result(6, `"${toQuantity(head.uncleCount)}"`),
      result(7, 'null'),
      error(8, -32000, 'pending block is not available'),
      error(9, -32000, 'safe block not found'),
      error(10, -32000, 'finalized block not found'),
      result(11, 'null'),
    ])
  })

  test('error: parameters get geth’s -32602 messages', async () => {
    const h = blocks[3]!.hash
    const cases: [string, unknown[], string][] = [
      ['eth_getUncleCountByBlockHash', [], 'missing value for required argument 0'],
      ['eth_getUncleCountByBlockHash', [h, '0x0'], 'too many arguments, want at most 1'],
      ['eth_getUncleCountByBlockHash', ['0x1234'], 'invalid argument 0: hex string has length 4, want 64 for common.Hash'],
      ['eth_getUncleCountByBlockNumber', [], 'missing value for required argument 0'],
      ['eth_getUncleCountByBlockNumber', ['0x01'], 'invalid argument 0: hex number with leading zero digits'],
      ['eth_getUncleCountByBlockNumber', ['3'], 'invalid argument 0: hex string without 0x prefix'],
      ['eth_getUncleCountByBlockNumber', [3], 'invalid argument 0: hex string without 0x prefix'],
      ['eth_getUncleCountByBlockNumber', ['0x8000000000000000'], 'invalid argument 0: block number larger than int64'],
      ['eth_getUncleCountByBlockNumber', ['0x'], 'invalid argument 0: hex string "0x"'],
      ['eth_getUncleCountByBlockNumber', ['0x3', '0x0'], 'too many arguments, want at most 1'],
      ['eth_getUncleByBlockNumberAndIndex', ['0x3'], 'missing value for required argument 1'],
      ['eth_getUncleByBlockNumberAndIndex', ['Latest', '0x0'], 'invalid argument 0: hex string without 0x prefix'],
      ['eth_getUncleByBlockNumberAndIndex', ['0x3', '0x01'], 'invalid argument 1: json: cannot unmarshal hex number with leading zero digits into Go value of type hexutil.Uint'],
      ['eth_getUncleByBlockNumberAndIndex', ['0x3', '0x0', 1], 'too many arguments, want at most 2'],
    ]
    const got = await answers(url, cases.map(([method, params], id) => call(id, method, params)))
    expect(got).toEqual(cases.map(([, , message], id) => error(id, -32602, message)))
  })

  test('behavior: over WebSocket the same bytes as over HTTP', async () => {
    const b = blocks.find((x) => x.uncleCount === 2)!
    const calls = [
      call(1, 'eth_getUncleCountByBlockHash', [b.hash]),
      call(2, 'eth_getUncleCountByBlockNumber', [toQuantity(b.number)]),
      call(3, 'eth_getUncleByBlockNumberAndIndex', [toQuantity(b.number), '0x1']),
      call(4, 'eth_getUncleCountByBlockHash', [unknownHash]),
    ]
    const ws = await openWs(wsUrl)
    try {
      for (const text of calls) expect(await ws.send(text)).toBe((await post(url, text)).body)
      expect(await ws.send(calls[0]!)).toBe(result(1, '"0x2"'))
    } finally {
      await ws.close()
    }
  })

  for (const transport of ['http', 'webSocket'] as const)
    test(`default: viem's typed requests over ${transport}`, async () => {
      const client = createPublicClient({ transport: transport === 'http' ? http(url) : webSocket(wsUrl) })
      try {
        const b = blocks.find((x) => x.uncleCount === 2)!
        expect(await client.request({ method: 'eth_getUncleCountByBlockHash', params: [b.hash] })).toBe('0x2')
        expect(await client.request({ method: 'eth_getUncleCountByBlockNumber', params: [toQuantity(b.number)] })).toBe('0x2')
        const byNumber = await client.request({ method: 'eth_getUncleByBlockNumberAndIndex', params: [toQuantity(b.number), '0x1'] })
        const byHash = await client.request({ method: 'eth_getUncleByBlockHashAndIndex', params: [b.hash, '0x1'] })
        expect(byNumber).toEqual(byHash)
        expect(byNumber).toMatchObject({ totalDifficulty: null, uncles: [] })
        expect(await client.request({ method: 'eth_getUncleCountByBlockHash', params: [unknownHash] })).toBeNull()
      } finally {
        const ws = client.transport as { getRpcClient?: () => Promise<{ close(): void }> }
        ;(await ws.getRpcClient?.())?.close()
      }
    })

  describe('reorg', () => {
    test('behavior: a replaced height answers the block that replaced it, cached answers included; the old block still answers by hash', async () => {
      const old = blocks.find((x) => x.uncleCount === 2 && x.number > 100n)!
      const height = toQuantity(old.number)
      const before = await answers(url, [call(1, 'eth_getUncleCountByBlockNumber', [height]), call(2, 'eth_getUncleByBlockNumberAndIndex', [height, '0x0'])])
      expect(before[0]).toBe(result(1, '"0x2"'))
      expect(before[1]).not.toBe(result(2, 'null'))
      const replacement = `0x${'5e'.repeat(32)}` as Hex
      await db.transaction(async (tx) => {
        await setBlocksCanonical(tx, { network: 'mainnet', hashes: [old.hash], canonical: false })
        await insertBlocksWithUncles(tx, { network: 'mainnet', blocks: [{ header: { hash: replacement, number: old.number, parentHash: blocks[Number(old.number) - 1]!.hash }, uncles: [] }] })
        await recordReorg(tx, { network: 'mainnet', fromBlock: old.number, toBlock: old.number, depth: 1, oldHash: old.hash, newHash: replacement })
      })
      // Note: the reorg is read within the heads' period (200 ms here).
      let after: string[] = []
      for (let tries = 0; tries < 50; tries++) {
        after = await answers(url, [call(1, 'eth_getUncleCountByBlockNumber', [height]), call(2, 'eth_getUncleByBlockNumberAndIndex', [height, '0x0'])])
        if (after[0] === result(1, '"0x0"')) break
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(after).toEqual([result(1, '"0x0"'), result(2, 'null')])
      expect(await answers(url, [call(3, 'eth_getUncleCountByBlockHash', [old.hash]), call(4, 'eth_getUncleCountByBlockHash', [replacement])])).toEqual([
        result(3, '"0x2"'),
        result(4, '"0x0"'),
      ])
    })
  })
})
