import { type HashedHeader, type Hex, headerFromRpc, uncleSize } from '@uncle-rpc/chain'
import { readFixtureJson } from '@uncle-rpc/testing'
import type { BlockWithUncles } from './queries/blocks.js'

// Test-only: the recorded mainnet blocks with uncles, in the form the indexer writes them.

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
