import type { HashedHeader, Hex } from '@uncle-rpc/chain'
import { describe, expect, test } from 'vitest'
import type { Db } from '../../client.js'
import { CanonicalBlockConflictError } from '../errors.js'
import { useTestDatabase } from '../../testing.js'
import { insertBlocksWithUncles } from './blocks.js'
import { registerNetwork } from './networks.js'
import { listIndexedRanges, markRangeIndexed } from './ranges.js'
import {
  canonicalBlocks,
  latestReorgId,
  lockNetworkWrites,
  recordReorg,
  reorgStats,
  reorgsSince,
  replacedBlocks,
  setBlocksCanonical,
  unmarkRangeIndexed,
} from './reorgs.js'

let db: Db
useTestDatabase({ max: 6 }, (database) => (db = database.db))

const word = (n: bigint, branch: number): Hex => `0x${((n + 1n) * 1000n + BigInt(branch)).toString(16).padStart(64, '0')}`

/** A header of `branch` at `number` whose parent is on `parentBranch` (not a real block: the db layer does not verify hashes). */
function header(number: bigint, branch = 0, parentBranch = branch): HashedHeader {
  return {
    hash: word(number, branch),
    parentHash: word(number - 1n, parentBranch),
    sha3Uncles: word(number, 900),
    miner: `0x${'ab'.repeat(20)}`,
    stateRoot: word(number, 901),
    transactionsRoot: word(number, 902),
    receiptsRoot: word(number, 903),
    logsBloom: `0x${'00'.repeat(256)}`,
    difficulty: 131_072n,
    number,
    gasLimit: 5000n,
    gasUsed: 0n,
    timestamp: 1_438_269_988n + number,
    extraData: '0x',
    mixHash: word(number, 904),
    nonce: '0x0102030405060708',
  }
}

async function chain(name: string, from: bigint, to: bigint, branch = 0): Promise<string> {
  await registerNetwork(db, { name, chainId: 1n })
  const items = []
  for (let n = from; n <= to; n++) items.push({ header: header(n, branch), uncles: [] })
  await insertBlocksWithUncles(db, { network: name, blocks: items })
  return name
}

describe('canonicalBlocks', () => {
  test('default', async () => {
    const net = await chain('canon', 1n, 5n)
    const refs = await canonicalBlocks(db, { network: net, from: 2n, to: 3n })
    expect(refs).toEqual([
      { number: 2n, hash: header(2n).hash, parentHash: header(1n).hash },
      { number: 3n, hash: header(3n).hash, parentHash: header(2n).hash },
    ])
  })

  test('args: empty and reversed ranges', async () => {
    const net = await chain('canon-args', 1n, 2n)
    expect(await canonicalBlocks(db, { network: net, from: 10n, to: 20n })).toEqual([])
    expect(await canonicalBlocks(db, { network: net, from: 2n, to: 1n })).toEqual([])
  })
})

describe('setBlocksCanonical', () => {
  test('default: a replaced block leaves the canonical set and can come back', async () => {
    const net = await chain('flip', 1n, 3n)
    expect(await setBlocksCanonical(db, { network: net, hashes: [header(3n).hash], canonical: false })).toBe(1)
    expect((await canonicalBlocks(db, { network: net, from: 1n, to: 3n })).map((r) => r.number)).toEqual([1n, 2n])
    // The sibling takes the height; the old block stays stored.
    await insertBlocksWithUncles(db, { network: net, blocks: [{ header: header(3n, 1, 0), uncles: [] }] })
    expect((await canonicalBlocks(db, { network: net, from: 3n, to: 3n }))[0]?.hash).toBe(header(3n, 1).hash)
    // Back to the first branch: the sibling leaves, the old block returns.
    await setBlocksCanonical(db, { network: net, hashes: [header(3n, 1).hash], canonical: false })
    expect(await setBlocksCanonical(db, { network: net, hashes: [header(3n).hash], canonical: true })).toBe(1)
    expect((await canonicalBlocks(db, { network: net, from: 3n, to: 3n }))[0]?.hash).toBe(header(3n).hash)
    expect(await replacedBlocks(db, { network: net })).toEqual([{ number: 3n, hash: header(3n, 1).hash, uncleCount: 0 }])
  })

  test('args: no hashes, unknown hashes, already in that state', async () => {
    const net = await chain('flip-args', 1n, 1n)
    expect(await setBlocksCanonical(db, { network: net, hashes: [], canonical: false })).toBe(0)
    expect(await setBlocksCanonical(db, { network: net, hashes: [word(99n, 9)], canonical: false })).toBe(0)
    expect(await setBlocksCanonical(db, { network: net, hashes: [header(1n).hash], canonical: true })).toBe(0)
  })

  test('error: two canonical blocks at one height are refused', async () => {
    const net = await chain('flip-conflict', 1n, 2n)
    await setBlocksCanonical(db, { network: net, hashes: [header(2n).hash], canonical: false })
    await insertBlocksWithUncles(db, { network: net, blocks: [{ header: header(2n, 1, 0), uncles: [] }] })
    await expect(setBlocksCanonical(db, { network: net, hashes: [header(2n).hash], canonical: true })).rejects.toBeInstanceOf(
      CanonicalBlockConflictError,
    )
    await expect(
      insertBlocksWithUncles(db, { network: net, blocks: [{ header: header(2n, 2, 0), uncles: [] }] }),
    ).rejects.toBeInstanceOf(CanonicalBlockConflictError)
  })
})

describe('unmarkRangeIndexed', () => {
  const r = (from: number, to: number) => ({ from: BigInt(from), to: BigInt(to) })

  test('default: splits the rows that cover the heights', async () => {
    const net = await chain('unmark', 0n, 0n)
    for (const [from, to] of [
      [0, 99],
      [100, 199],
      [150, 160],
      [300, 300],
    ] as const)
      await markRangeIndexed(db, { network: net, from: BigInt(from), to: BigInt(to) })
    await unmarkRangeIndexed(db, { network: net, from: 150n, to: 155n })
    expect(await listIndexedRanges(db, { network: net })).toEqual([r(0, 149), r(156, 199), r(300, 300)])
    await unmarkRangeIndexed(db, { network: net, from: 300n, to: 400n })
    await unmarkRangeIndexed(db, { network: net, from: 0n, to: 0n })
    expect(await listIndexedRanges(db, { network: net })).toEqual([r(1, 149), r(156, 199)])
  })

  test('args: heights not indexed change nothing', async () => {
    const net = await chain('unmark-args', 0n, 0n)
    await markRangeIndexed(db, { network: net, from: 10n, to: 20n })
    await unmarkRangeIndexed(db, { network: net, from: 21n, to: 30n })
    expect(await listIndexedRanges(db, { network: net })).toEqual([r(10, 20)])
  })
})

describe('lockNetworkWrites', () => {
  const waitingLocks = async () => {
    const result = await db.$client.query<{ n: number }>(
      `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`,
    )
    return result.rows[0]?.n ?? 0
  }

  test('behavior: shared holders run together; exclusive waits for them, and they for it', async () => {
    const events: string[] = []
    let releaseShared: () => void = () => {}
    const sharedHeld = new Promise<void>((resolve) => {
      releaseShared = resolve
    })
    const hold = (name: string) =>
      db.transaction(async (tx) => {
        await lockNetworkWrites(tx, { network: 'locked', mode: 'shared' })
        events.push(`${name} locked`)
        await sharedHeld
        events.push(`${name} done`)
      })
    const a = hold('a')
    const b = hold('b')
    while (events.length < 2) await new Promise((resolve) => setTimeout(resolve, 10))
    const exclusive = db.transaction(async (tx) => {
      await lockNetworkWrites(tx, { network: 'locked', mode: 'exclusive' })
      events.push('exclusive locked')
    })
    while ((await waitingLocks()) < 1) await new Promise((resolve) => setTimeout(resolve, 10))
    // Another network is not affected.
    await db.transaction((tx) => lockNetworkWrites(tx, { network: 'other', mode: 'exclusive' }))
    releaseShared()
    await Promise.all([a, b, exclusive])
    expect(events.slice(0, 2).sort()).toEqual(['a locked', 'b locked'])
    expect(events.at(-1)).toBe('exclusive locked')
  })
})

describe('reorg log', () => {
  test('default: recorded reorgs are listed after an id, per network or all', async () => {
    const a = await chain('log-a', 0n, 0n)
    const b = await chain('log-b', 0n, 0n)
    const before = await latestReorgId(db)
    const first = await recordReorg(db, {
      network: a,
      fromBlock: 10n,
      toBlock: 12n,
      depth: 3,
      oldHash: header(12n).hash,
      newHash: header(12n, 1).hash,
    })
    const second = await recordReorg(db, { network: b, fromBlock: 5n, toBlock: 5n, depth: 1, oldHash: header(5n).hash, newHash: null })
    expect(first).toBeGreaterThan(before)
    expect(second).toBeGreaterThan(first)
    expect(await latestReorgId(db)).toBe(second)
    expect(await latestReorgId(db, { network: a })).toBe(first)
    expect(await latestReorgId(db, { network: 'log-none' })).toBe(0n)
    const all = await reorgsSince(db, { afterId: before })
    expect(all.map((e) => e.id)).toEqual([first, second])
    expect(all[0]).toEqual({
      id: first,
      network: a,
      fromBlock: 10n,
      toBlock: 12n,
      depth: 3,
      oldHash: header(12n).hash,
      newHash: header(12n, 1).hash,
      detectedAt: expect.any(Date),
    })
    expect((await reorgsSince(db, { afterId: before, network: b })).map((e) => e.id)).toEqual([second])
    expect(await reorgsSince(db, { afterId: second })).toEqual([])
    expect(await reorgsSince(db, { afterId: before, limit: 1 })).toHaveLength(1)
    expect(await reorgStats(db, { network: a })).toEqual({ reorgs: 1, deepest: 3, replaced: 3, last: expect.any(Date) })
    expect(await reorgStats(db, { network: 'log-none' })).toEqual({ reorgs: 0, deepest: 0, replaced: 0, last: null })
  })
})
