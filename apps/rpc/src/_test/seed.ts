import { readFileSync } from 'node:fs'
import { type Hex, headerFromRpc, openEra1, uncleSize } from '@uncle-rpc/chain'
import type { Db } from '@uncle-rpc/db'
import { type BlockWithUncles, insertBlocksWithUncles, notifyRangeIndexed, registerNetwork } from '@uncle-rpc/db/chain'
import { fixturePath, readFixtureJson, readFixtureJsonl } from '@uncle-rpc/testing'

// Test and bench helpers: the real mainnet uncles of blocks 0..8191 and geth's answers for them.

export const mainnetBlocksFixture = 'mainnet-era1/mainnet_0-8191_blocks_with_uncles.json'
export const mainnetUnclesDerived = 'derived/geth_eth_getUncleByBlockHashAndIndex_mainnet_0-8191.jsonl'
export const infuraSampleResponse = 'recorded/infura-docs/eth_getUncleByBlockHashAndIndex.response.json'
export const paramCases = 'derived/geth_param_validation_cases.json'

type FixtureBlock = { header: unknown; totalDifficulty: Hex; uncles: unknown[] }

/**
 * Registers `network` and writes the 1,295 mainnet blocks with uncles (1,410 uncles) of 0..8191
 * (or of minBlock..maxBlock), with the notification the indexer's writer sends (the rpc's null filter follows it).
 */
export async function seedMainnetUncles(db: Db, network = 'mainnet', maxBlock = 8191, minBlock = 0): Promise<{ blocks: number; uncles: number }> {
  await registerNetwork(db, { name: network, chainId: 1n })
  const fixture = readFixtureJson<{ blocks: FixtureBlock[] }>(mainnetBlocksFixture)
  const within = fixture.blocks.filter((b) => {
    const number = Number(BigInt((b.header as { number: Hex }).number))
    return number >= minBlock && number <= maxBlock
  })
  const blocks = within.map((b) => ({
    header: headerFromRpc(b.header),
    totalDifficulty: BigInt(b.totalDifficulty),
    uncles: b.uncles.map((u) => {
      const uncle = headerFromRpc(u)
      return { ...uncle, size: uncleSize(uncle) }
    }),
  }))
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

export const mainnetEra1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'

/** One block of the era1 fixture as the uncle family answers for it: hash and uncle count. */
export type Era1BlockSummary = { number: bigint; hash: Hex; uncleCount: number }

/**
 * Registers `network` and writes every block of mainnet epoch 0 (0..8191, from the era1 file:
 * blocks without uncles too, as the indexer writes them) with its uncles; returns each block's
 * number, hash and uncle count, by number.
 */
export async function seedMainnetEpoch0(db: Db, network = 'mainnet'): Promise<Era1BlockSummary[]> {
  await registerNetwork(db, { name: network, chainId: 1n })
  const file = openEra1(readFileSync(fixturePath(mainnetEra1)))
  const summaries: Era1BlockSummary[] = []
  for (let from = 0; from < file.count; from += 1024) {
    const blocks: BlockWithUncles[] = []
    for (let n = from; n < Math.min(file.count, from + 1024); n++) {
      const block = file.block(file.startNumber + BigInt(n))
      blocks.push({ header: block.header, uncles: block.uncles.map((uncle) => ({ ...uncle, size: uncleSize(uncle) })) })
      summaries.push({ number: block.header.number, hash: block.header.hash, uncleCount: block.uncles.length })
    }
    await db.transaction(async (tx) => {
      await insertBlocksWithUncles(tx, { network, blocks })
      await notifyRangeIndexed(tx, { network, from: BigInt(from), to: BigInt(from + blocks.length - 1) })
    })
  }
  return summaries
}
