import { type HashedHeader, type Hex, headerFromRpc, uncleSize } from '@uncle-rpc/chain'
import { readFixtureJson, readFixtureJsonl } from '@uncle-rpc/testing'
import type { Db } from '../client.js'
import { type BlockWithUncles, insertBlocksWithUncles } from './queries/blocks.js'
import { registerNetwork } from './queries/networks.js'
import { notifyRangeIndexed } from './queries/uncleBlocks.js'

// Test and bench helpers: the recorded mainnet blocks with uncles of 0..8191, in the form the
// indexer writes them, written to a database, and geth's answers for their uncles.

export const mainnetBlocksFixture = 'mainnet-era1/mainnet_0-8191_blocks_with_uncles.json'
export const mainnetUnclesDerived = 'derived/geth_eth_getUncleByBlockHashAndIndex_mainnet_0-8191.jsonl'

type FixtureBlock = { number: number; hash: Hex; totalDifficulty: Hex; header: unknown; uncles: unknown[] }

/** The 1,295 mainnet blocks of 0..8191 that have uncles (1,410 uncles), decoded to domain headers. */
export function loadMainnetBlocks(): (BlockWithUncles & { header: HashedHeader; totalDifficulty: bigint })[] {
  const fixture = readFixtureJson<{ blocks: FixtureBlock[] }>(mainnetBlocksFixture)
  return fixture.blocks.map((b) => ({
    header: headerFromRpc(b.header),
    totalDifficulty: BigInt(b.totalDifficulty),
    uncles: b.uncles.map((u) => {
      const uncle = headerFromRpc(u)
      return { ...uncle, size: uncleSize(uncle) }
    }),
  }))
}

/**
 * Registers `network` and writes the 1,295 mainnet blocks with uncles (1,410 uncles) of 0..8191
 * (or of minBlock..maxBlock), with the notification the indexer's writer sends (the rpc's null filter follows it).
 */
export async function seedMainnetUncles(db: Db, network = 'mainnet', maxBlock = 8191, minBlock = 0): Promise<{ blocks: number; uncles: number }> {
  await registerNetwork(db, { name: network, chainId: 1n })
  const blocks = loadMainnetBlocks().filter((b) => b.header.number >= BigInt(minBlock) && b.header.number <= BigInt(maxBlock))
  return db.transaction(async (tx) => {
    const written = await insertBlocksWithUncles(tx, { network, blocks })
    await notifyRangeIndexed(tx, { network, from: BigInt(minBlock), to: BigInt(maxBlock) })
    return written
  })
}

/** One derived line: where the uncle is and geth's result for it. */
export type DerivedUncle = { blockHash: Hex; blockNumber: number; index: Hex; result: Record<string, unknown> }

/** The derived geth answers, one per uncle, in fixture order. */
export function derivedUncles(): DerivedUncle[] {
  return readFixtureJsonl<DerivedUncle>(mainnetUnclesDerived)
}

/** geth's result text with `"totalDifficulty":null` inserted after `timestamp`: our contract's exact bytes. */
export function expectedResultJson(result: Record<string, unknown>): string {
  const json = JSON.stringify(result)
  const at = json.indexOf(',"transactionsRoot"')
  if (at === -1 || !json.includes('"timestamp"')) throw new Error('unexpected derived line shape')
  return json.slice(0, at) + ',"totalDifficulty":null' + json.slice(at)
}
