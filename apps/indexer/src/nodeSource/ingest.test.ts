import { createLogger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import {
  canonicalBlocks,
  insertBlocksWithUncles,
  latestReorgId,
  listIndexedRanges,
  markRangeIndexed,
  registerNetwork,
  replacedBlocks,
  reorgsSince,
  setBlocksCanonical,
} from '@uncle-rpc/db/chain'
import { useTestDatabase } from '@uncle-rpc/db/testing'
import { createMethods, createSampleNodeServer, createSyntheticChain, type SyntheticChain } from '@uncle-rpc/sample-node'
import { describe, expect, test } from 'vitest'
import { compareWithNode } from '../_test/compareWithNode.js'
import { fetchRange, requireFetched, type VerifiedBlock } from './fetchRange.js'
import type { ChainTarget } from '../writing/linkage.js'
import { createUpstream, type Upstream } from '../upstream/createUpstream.js'
import { ingestBlocks } from './ingest.js'

// ingestBlocks and reorg resolution against a real sample node (in this process, so the
// test decides when its synthetic chain reorganises) and a real Postgres.

let db: Db
useTestDatabase({ max: 6 }, (opened) => (db = opened.db))

/** A synthetic chain served over HTTP, and a registered network for it. */
async function setup(name: string, blocks: number, confirmations = 3) {
  const chain = await createSyntheticChain({ seed: name.length * 7 + blocks, blocks, chainId: 1337n, londonAt: 0 })
  const server = createSampleNodeServer({ methods: createMethods({ chain }), maxBatchSize: 1000 })
  const address = await server.listen(0, '127.0.0.1')
  const url = `http://127.0.0.1:${address.port}`
  const upstream = createUpstream({ url })
  await registerNetwork(db, { name, chainId: 1337n })
  const target: ChainTarget = { network: name, fromBlock: 0n, confirmations: BigInt(confirmations) }
  // Note: each setup logs to its own array, so a test reads only its own lines.
  const logs: { level: number; msg: string; depth?: number }[] = []
  const logger = createLogger({ level: 'info', name: 'test', destination: { write: (line: string) => void logs.push(JSON.parse(line)) } })
  const deps = { db, upstream, logger }
  const fetch = async (from: number, to: number): Promise<VerifiedBlock[]> => {
    const numbers = Array.from({ length: to - from + 1 }, (_, i) => BigInt(from + i))
    const { blocks: fetched, rejected } = requireFetched(name, await fetchRange(upstream, numbers))
    expect(rejected).toEqual([])
    return fetched.sort((a, b) => (a.header.number < b.header.number ? -1 : 1))
  }
  const write = (blocks: VerifiedBlock[]) => ingestBlocks(deps, target, blocks)
  const agrees = async () => compareWithNode(db, { network: name, url, from: 0n, head: chain.head() })
  return { chain: chain as SyntheticChain, url, upstream: upstream as Upstream, target, fetch, write, agrees, logs, close: () => server.close() }
}

describe('ingestBlocks', () => {
  test('default: a linked run is written canonical and marked indexed', async () => {
    const s = await setup('plain', 100)
    try {
      const uncleCount = (blocks: VerifiedBlock[]) => blocks.reduce((n, b) => n + b.uncles.length, 0)
      const [first, second] = [await s.fetch(0, 59), await s.fetch(60, 99)]
      expect(await s.write(first)).toEqual({ written: 60, unclesWritten: uncleCount(first) })
      expect(await s.write(second)).toEqual({ written: 40, unclesWritten: uncleCount(second) })
      // Stored already: nothing written, so no uncle counted either.
      expect(await s.write(await s.fetch(90, 99))).toEqual({ written: 0, unclesWritten: 0 })
      expect(await s.agrees()).toEqual([])
      expect(await listIndexedRanges(db, { network: 'plain' })).toEqual([{ from: 0n, to: 99n }])
    } finally {
      await s.close()
    }
  })

  test('behavior: a new head on another branch replaces the stored blocks down to the fork, keeping them', async () => {
    const s = await setup('reorg', 100)
    try {
      await s.write(await s.fetch(0, 99))
      const before = await latestReorgId(db, { network: 'reorg' })
      s.chain.reorg(5) // node: 95'…100'
      const result = await s.write(await s.fetch(100, 100))
      expect(result.reorg).toMatchObject({ replaced: 5, from: 95n, to: 100n })
      expect(await s.agrees()).toEqual([])
      const replaced = await replacedBlocks(db, { network: 'reorg' })
      expect(replaced.map((r) => r.number)).toEqual([95n, 96n, 97n, 98n, 99n])
      const [event] = await reorgsSince(db, { afterId: before, network: 'reorg' })
      expect(event).toMatchObject({ fromBlock: 95n, toBlock: 99n, depth: 5, oldHash: replaced[4]?.hash })
      expect(s.logs.find((l) => l.msg === 'reorg deeper than confirmations')).toMatchObject({ level: 50, depth: 5 })
      expect(await listIndexedRanges(db, { network: 'reorg' })).toEqual([{ from: 0n, to: 100n }])
    } finally {
      await s.close()
    }
  })

  test('behavior: a reorg within the confirmations is logged at info level', async () => {
    const s = await setup('shallow', 50, 10)
    try {
      await s.write(await s.fetch(0, 49))
      s.logs.length = 0
      s.chain.reorg(2)
      await s.write(await s.fetch(49, 50))
      expect(await s.agrees()).toEqual([])
      expect(s.logs.map((l) => [l.level, l.msg, l.depth])).toEqual([[30, 'reorg', 2]])
    } finally {
      await s.close()
    }
  })

  test('behavior: a run fetched before a reorg is never written as canonical', async () => {
    const s = await setup('stale', 100)
    try {
      await s.write(await s.fetch(0, 89))
      const stale = await s.fetch(90, 99)
      s.chain.reorg(3) // node: 97'…100'
      await s.write(await s.fetch(97, 100))
      const result = await s.write(stale)
      expect(result.reorg?.replaced).toBe(0)
      expect(await s.agrees()).toEqual([])
      expect(await replacedBlocks(db, { network: 'stale' })).toEqual([])
    } finally {
      await s.close()
    }
  })

  test('behavior: adjacent runs of two branches written at the same time end on the node\'s branch', async () => {
    const s = await setup('seam', 100)
    try {
      await s.write(await s.fetch(0, 89))
      const stale = await s.fetch(90, 96)
      s.chain.reorg(6) // node: 95'…100'
      const fresh = await s.fetch(97, 100)
      await Promise.all([s.write(stale), s.write(fresh)])
      expect(await s.agrees()).toEqual([])
    } finally {
      await s.close()
    }
  })

  test('behavior: a block replaced earlier becomes canonical again when the chain returns to it', async () => {
    const s = await setup('back', 20)
    try {
      const blocks = await s.fetch(0, 19)
      await s.write(blocks)
      const top = blocks[19] as VerifiedBlock
      // A sibling took height 19 (as if the node had switched), then the node switched back.
      const sibling = { ...top, header: { ...top.header, hash: `0x${'ee'.repeat(32)}` as const } }
      await db.transaction(async (tx) => {
        await setBlocksCanonical(tx, { network: 'back', hashes: [top.header.hash], canonical: false })
        await insertBlocksWithUncles(tx, { network: 'back', blocks: [sibling] })
      })
      const result = await s.write(await s.fetch(19, 19))
      expect(result.reorg?.replaced).toBe(1)
      expect(await s.agrees()).toEqual([])
      expect((await replacedBlocks(db, { network: 'back' })).map((r) => r.hash)).toEqual([sibling.header.hash])
    } finally {
      await s.close()
    }
  })

  test('behavior: stored blocks above the node\'s head that do not descend from it stop being canonical and indexed', async () => {
    const s = await setup('orphans', 30)
    try {
      const blocks = await s.fetch(0, 29)
      await s.write(blocks)
      const top = blocks[29] as VerifiedBlock
      const fake = (n: number) => ({
        header: { ...top.header, number: BigInt(n), hash: `0x${n.toString(16).padStart(64, 'f')}` as const, parentHash: `0x${'dd'.repeat(32)}` as const },
        uncles: [],
      })
      await insertBlocksWithUncles(db, { network: 'orphans', blocks: [fake(30), fake(31)] })
      await markRangeIndexed(db, { network: 'orphans', from: 30n, to: 31n })
      const result = await s.write(await s.fetch(29, 29))
      expect(result.reorg?.replaced).toBe(2)
      expect(await s.agrees()).toEqual([])
      expect((await canonicalBlocks(db, { network: 'orphans', from: 29n, to: 40n })).map((b) => b.number)).toEqual([29n])
      expect(await listIndexedRanges(db, { network: 'orphans' })).toEqual([{ from: 0n, to: 29n }])
    } finally {
      await s.close()
    }
  })
})
