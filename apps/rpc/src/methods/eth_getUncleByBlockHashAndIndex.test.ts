import { createDb, type Db } from '@uncle-rpc/db'
import { type OpenTestDatabase, useTestDatabase } from '@uncle-rpc/db/testing'
import { bodyText, InvalidParamsError, isRawJson, type RawJson } from '@uncle-rpc/jsonrpc'
import { describeWithFixtures } from '@uncle-rpc/testing'
import { beforeAll, expect, test } from 'vitest'
import { derivedUncles, expectedResultJson, mainnetBlocksFixture, mainnetUnclesDerived, seedMainnetUncles } from '../_test/seed.js'
import { createAnswerCache } from '../reads/cache.js'
import { createFindUncle, primaryReads } from '../reads/store.js'
import type { FindUncle } from './context.js'
import { createGetUncleByBlockHashAndIndex } from './eth_getUncleByBlockHashAndIndex.js'

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'eth_getUncleByBlockHashAndIndex', () => {
  let database: OpenTestDatabase
  let db: Db
  const lines = derivedUncles()
  const early = lines[0]!
  const late = lines.at(-1)!

  useTestDatabase({ max: 2 }, (opened) => {
    database = opened
    db = opened.db
  })
  beforeAll(() => seedMainnetUncles(db))

  function setup(confirmations: number, head: bigint | null, maxEntries = 100) {
    const lookups: unknown[] = []
    const find = createFindUncle(primaryReads(db))
    const findUncle: FindUncle = (params) => {
      lookups.push(params)
      return find(params)
    }
    const cache = createAnswerCache({ maxEntries })
    const method = createGetUncleByBlockHashAndIndex({ findUncle, cache, latest: () => head })
    const context = { network: { name: 'mainnet', confirmations } }
    return { lookups, cache, call: (params: unknown) => method(params, context) }
  }

  test('default: the uncle as raw JSON, totalDifficulty null, geth’s bytes otherwise', async () => {
    const { call } = setup(0, 8187n)
    const result = await call([early.blockHash, early.index])
    expect(isRawJson(result)).toBe(true)
    expect(bodyText((result as RawJson).json)).toBe(expectedResultJson(early.result))
    // Upper-case hash digits and 0X are accepted, as geth does.
    const upper = `0X${early.blockHash.slice(2).toUpperCase()}`
    expect(bodyText(((await call([upper, early.index])) as RawJson).json)).toBe(expectedResultJson(early.result))
  })

  test('behavior: a cached answer is found from the params text as sent, and from any other spelling after decoding; a misspelling that decodes to nothing is still refused', async () => {
    const { call, cache, lookups } = setup(0, 8187n)
    const lookupsOf = (c: typeof cache) => {
      let n = 0
      const get = c.get.bind(c)
      c.get = (network, hash, index) => (n++, get(network, hash, index))
      return () => n
    }
    const gets = lookupsOf(cache)
    await call([early.blockHash, early.index])
    expect(lookups).toHaveLength(1)
    // The canonical text: one cache lookup, no read.
    const before = gets()
    expect(bodyText(((await call([early.blockHash, early.index])) as RawJson).json)).toBe(expectedResultJson(early.result))
    expect(gets() - before).toBe(1)
    // Upper-case hex and 0X decode to the cached key: a second lookup finds it, still no read.
    expect(bodyText(((await call([early.blockHash.toUpperCase().replace('0X', '0x'), early.index.replace('0x', '0X')])) as RawJson).json)).toBe(expectedResultJson(early.result))
    expect(lookups).toHaveLength(1)
    // Leading zeros are not a quantity, cached or not.
    await expect(call([early.blockHash, '0x00'])).rejects.toThrow(InvalidParamsError)
  })

  test('behavior: null for an unknown block or an index past the end; null is never cached', async () => {
    const { call, cache, lookups } = setup(0, 8187n)
    expect(await call([`0x${'00'.repeat(32)}`, '0x0'])).toBeNull()
    expect(await call([early.blockHash, '0x5'])).toBeNull()
    expect(await call([early.blockHash, '0x5'])).toBeNull()
    expect(cache.size).toBe(0)
    expect(lookups).toHaveLength(3)
    // Past the smallint column: null without a lookup.
    expect(await call([early.blockHash, '0xffffffffffffffff'])).toBeNull()
    expect(lookups).toHaveLength(3)
  })

  test('behavior: only answers at least `confirmations` below the latest indexed block are cached', async () => {
    const { call, cache, lookups } = setup(10, BigInt(late.blockNumber) + 5n)
    await call([late.blockHash, late.index])
    await call([late.blockHash, late.index])
    expect(cache.size).toBe(0)
    expect(lookups).toHaveLength(2)
    await call([early.blockHash, early.index])
    const second = await call([early.blockHash, early.index])
    expect(cache.size).toBe(1)
    expect(lookups).toHaveLength(3)
    expect(bodyText((second as RawJson).json)).toBe(expectedResultJson(early.result))
    // Exactly `confirmations` deep is deep enough.
    const edge = setup(5, BigInt(late.blockNumber) + 5n)
    await edge.call([late.blockHash, late.index])
    expect(edge.cache.size).toBe(1)
  })

  test('behavior: nothing is cached while no latest block is known', async () => {
    const { call, cache } = setup(0, null)
    await call([early.blockHash, early.index])
    expect(cache.size).toBe(0)
  })

  test('behavior: identical concurrent lookups share one query, found or not', async () => {
    const { call, lookups } = setup(0, null)
    const unknown = `0x${'00'.repeat(32)}`
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, () => call([early.blockHash, early.index])),
      ...Array.from({ length: 20 }, () => call([unknown, '0x0'])),
    ])
    expect(lookups).toHaveLength(2)
    expect(new Set(answers.slice(0, 20).map((a) => bodyText((a as RawJson).json)))).toEqual(new Set([expectedResultJson(early.result)]))
    expect(answers.slice(20).every((a) => a === null)).toBe(true)
    // Settled lookups are forgotten: the next request queries again (nothing is cached with no head).
    await call([unknown, '0x0'])
    expect(lookups).toHaveLength(3)
  })

  test('error: a failed lookup fails every request that shared it, and is not remembered', async () => {
    // A pool that has been ended fails every query, as a lost database does.
    const ended = createDb({ url: database.url, max: 1 })
    await ended.close()
    const failing = createFindUncle(primaryReads(ended.db))
    const working = createFindUncle(primaryReads(db))
    let fail = true
    const method = createGetUncleByBlockHashAndIndex({
      findUncle: (params) => (fail ? failing(params) : working(params)),
      cache: createAnswerCache({ maxEntries: 10 }),
      latest: () => null,
    })
    const context = { network: { name: 'mainnet', confirmations: 0 } }
    const results = await Promise.allSettled([method([early.blockHash, '0x0'], context), method([early.blockHash, '0x0'], context)])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    fail = false
    expect(await method([early.blockHash, '0x0'], context)).not.toBeNull()
  })

  test('error: bad params are -32602 with geth’s messages', async () => {
    const { call } = setup(0, 8187n)
    await expect(call([early.blockHash])).rejects.toThrow(new InvalidParamsError('missing value for required argument 1'))
    await expect(call(['0x12', '0x0'])).rejects.toThrow('invalid argument 0: hex string has length 2, want 64 for common.Hash')
    await expect(call([early.blockHash, '0x01'])).rejects.toThrow(
      'invalid argument 1: json: cannot unmarshal hex number with leading zero digits into Go value of type hexutil.Uint',
    )
  })
})
