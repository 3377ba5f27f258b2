import { type HashedHeader, type Hex, uncleSize } from '@uncle-rpc/chain'
import { describeWithFixtures } from '@uncle-rpc/testing'
import { describe, expect, test } from 'vitest'
import type { Db } from '../../client.js'
import { CanonicalBlockConflictError, UnknownNetworkError } from '../errors.js'
import { loadMainnetBlocks, mainnetBlocksFixture } from '../testFixtures.js'
import { useTestDatabase } from '../../testing.js'
import { type BlockWithUncles, countBlocks, insertBlocksWithUncles, latestIndexedBlock } from './blocks.js'
import { registerNetwork } from './networks.js'
import { copyBlocksWithUncles } from './copyBlocks.js'
import { countUncles, getUncle } from './uncles.js'

let db: Db
useTestDatabase({ max: 4 }, (database) => (db = database.db))

/** An uncle as the indexer hands it over: with the size geth reports. */
const sized = (uncle: HashedHeader) => ({ ...uncle, size: uncleSize(uncle) })

const word = (n: bigint, salt: number): Hex => `0x${((n + 1n) * 1000n + BigInt(salt)).toString(16).padStart(64, '0')}`

/** A header with distinct, well-formed fields (not a real block: the db layer does not verify hashes). */
function header(number: bigint, salt = 0): HashedHeader {
  return {
    hash: word(number, salt),
    parentHash: word(number - 1n, salt),
    sha3Uncles: word(number, salt + 1),
    miner: `0x${'ab'.repeat(20)}`,
    stateRoot: word(number, salt + 2),
    transactionsRoot: word(number, salt + 3),
    receiptsRoot: word(number, salt + 4),
    logsBloom: `0x${'00'.repeat(256)}`,
    difficulty: 131_072n + number,
    number,
    gasLimit: 5000n,
    gasUsed: 0n,
    timestamp: 1_438_269_988n + number,
    extraData: '0x',
    mixHash: word(number, salt + 5),
    nonce: '0x0102030405060708',
  }
}

async function network(name: string): Promise<string> {
  await registerNetwork(db, { name, chainId: 1n })
  return name
}

describe('insertBlocksWithUncles', () => {
  test('default', async () => {
    const net = await network('default')
    const uncle = header(1n, 7)
    const result = await insertBlocksWithUncles(db, {
      network: net,
      blocks: [
        { header: header(2n), totalDifficulty: 10n, uncles: [sized(uncle)] },
        { header: header(3n), uncles: [] },
      ],
    })
    expect(result).toEqual({ blocks: 2, uncles: 1 })
    expect(await getUncle(db, { network: net, blockHash: header(2n).hash, index: 0 })).toEqual({
      ...uncle,
      size: expect.any(Number),
      blockNumber: 2n,
    })
    expect(await latestIndexedBlock(db, { network: net })).toEqual({ number: 3n, hash: header(3n).hash })
  })

  test('args: empty', async () => {
    expect(await insertBlocksWithUncles(db, { network: 'none', blocks: [] })).toEqual({ blocks: 0, uncles: 0 })
  })

  test('behavior: idempotent (a second insert writes nothing)', async () => {
    const net = await network('twice')
    const blocks: BlockWithUncles[] = [{ header: header(5n), uncles: [sized(header(4n, 7)), sized(header(3n, 7))] }]
    expect(await insertBlocksWithUncles(db, { network: net, blocks })).toEqual({ blocks: 1, uncles: 2 })
    expect(await insertBlocksWithUncles(db, { network: net, blocks })).toEqual({ blocks: 0, uncles: 0 })
    // Note: duplicates inside one batch are absorbed too (jobs may overlap).
    expect(await insertBlocksWithUncles(db, { network: net, blocks: [...blocks, ...blocks] })).toEqual({ blocks: 0, uncles: 0 })
    expect([await countBlocks(db, { network: net }), await countUncles(db, { network: net })]).toEqual([1, 2])
  })

  test('behavior: numeric(78,0) holds 2^200+1 and 2^256-1 exactly; fork fields round-trip', async () => {
    const net = await network('big')
    const big = 2n ** 200n + 1n
    const uncle: HashedHeader = {
      ...header(8n, 7),
      difficulty: big,
      gasLimit: 2n ** 256n - 1n,
      timestamp: 2n ** 64n - 1n,
      baseFeePerGas: big,
      withdrawalsRoot: word(1n, 1),
      blobGasUsed: 2n ** 64n - 1n,
      excessBlobGas: 0n,
      parentBeaconBlockRoot: word(1n, 2),
      requestsHash: word(1n, 3),
      extraData: '0xdeadbeef',
    }
    await insertBlocksWithUncles(db, {
      network: net,
      blocks: [{ header: header(9n), totalDifficulty: big, uncles: [sized(uncle)] }],
    })
    const stored = await getUncle(db, { network: net, blockHash: header(9n).hash, index: 0 })
    expect(stored).toEqual({ ...uncle, size: expect.any(Number), blockNumber: 9n })
  })

  test('behavior: upper-case hex is stored as bytes and read back lower-case', async () => {
    const net = await network('case')
    const block = { ...header(1n), hash: header(1n).hash.toUpperCase().replace('0X', '0x') as Hex }
    await insertBlocksWithUncles(db, { network: net, blocks: [{ header: block, uncles: [sized(header(0n, 7))] }] })
    expect((await getUncle(db, { network: net, blockHash: header(1n).hash, index: 0 }))?.hash).toBe(header(0n, 7).hash)
  })

  test('error: a different canonical block at a stored height', async () => {
    const net = await network('conflict')
    await insertBlocksWithUncles(db, { network: net, blocks: [{ header: header(1n), uncles: [] }] })
    const other = { header: header(1n, 500), uncles: [sized(header(0n, 7))] }
    await expect(insertBlocksWithUncles(db, { network: net, blocks: [other] })).rejects.toThrow(CanonicalBlockConflictError)
    expect(await countUncles(db, { network: net })).toBe(0)
  })

  test('error: unregistered network', async () => {
    const error = await insertBlocksWithUncles(db, {
      network: 'unregistered',
      blocks: [{ header: header(1n), uncles: [] }],
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnknownNetworkError)
    expect((error as Error).message).toBe('network "unregistered" is not registered (call registerNetwork first)')
    // The COPY path refuses it the same way, and neither wrote a row.
    const copied = await db
      .transaction((tx) => copyBlocksWithUncles(tx, { network: 'unregistered', blocks: [{ header: header(2n), uncles: [] }] }))
      .catch((e: unknown) => e)
    expect(copied).toBeInstanceOf(UnknownNetworkError)
    expect(await countBlocks(db, { network: 'unregistered' })).toBe(0)
  })

  test('error: malformed hex never reaches the database', async () => {
    const net = await network('badhex')
    await expect(
      insertBlocksWithUncles(db, { network: net, blocks: [{ header: { ...header(1n), hash: '0xabc' }, uncles: [] }] }),
    ).rejects.toThrow('Cannot store value as bytea')
  })
})

describeWithFixtures([mainnetBlocksFixture], 'insertBlocksWithUncles: speed', () => {
  test('behavior: 8,192 blocks + 1,410 uncles in one call', async () => {
    const net = await network('speed')
    // Note: the indexer passes each uncle's size (it checks it against the node's); so does this.
    const withSizes = loadMainnetBlocks().map((b) => ({ ...b, uncles: b.uncles.map((u) => ({ ...u, size: uncleSize(u) })) }))
    const real = new Map(withSizes.map((b) => [b.header.number, b]))
    const blocks: BlockWithUncles[] = []
    for (let n = 0n; n < 8192n; n++) blocks.push(real.get(n) ?? { header: header(n, 900), totalDifficulty: n, uncles: [] })
    const started = performance.now()
    const result = await insertBlocksWithUncles(db, { network: net, blocks })
    const ms = performance.now() - started
    expect(result).toEqual({ blocks: 8192, uncles: 1410 })
    const rowsPerSecond = Math.round(((8192 + 1410) / ms) * 1000)
    process.stderr.write(`insertBlocksWithUncles: 8,192 blocks + 1,410 uncles in ${ms.toFixed(0)} ms = ${rowsPerSecond} rows/s\n`)
    expect(ms).toBeLessThan(20_000)
  })
})

describe('copyBlocksWithUncles', () => {
  test('behavior: COPY writes every header column (fork fields, 2^256-1) as the INSERT path does', async () => {
    const net = await network('copy')
    const uncle: HashedHeader = {
      ...header(20n, 7),
      gasLimit: 2n ** 256n - 1n,
      timestamp: 2n ** 63n - 1n,
      baseFeePerGas: 7n,
      withdrawalsRoot: word(2n, 1),
      blobGasUsed: 0n,
      excessBlobGas: 3n,
      parentBeaconBlockRoot: word(2n, 2),
      requestsHash: word(2n, 3),
      extraData: '0x00ff',
    }
    const result = await db.transaction((tx) => copyBlocksWithUncles(tx, { network: net, blocks: [{ header: header(21n), uncles: [sized(uncle)] }] }))
    expect(result).toEqual({ blocks: 1, uncles: 1 })
    expect(await getUncle(db, { network: net, blockHash: header(21n).hash, index: 0 })).toEqual({ ...uncle, size: uncleSize(uncle), blockNumber: 21n })
  })
})
