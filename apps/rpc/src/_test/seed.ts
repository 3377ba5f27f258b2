import { readFileSync } from 'node:fs'
import { type Hex, openEra1, uncleSize } from '@uncle-rpc/chain'
import type { Db } from '@uncle-rpc/db'
import { type BlockWithUncles, insertBlocksWithUncles, notifyRangeIndexed, registerNetwork } from '@uncle-rpc/db/chain'
import { fixturePath } from '@uncle-rpc/testing'

// The rpc tests' fixtures: the mainnet uncles of blocks 0..8191 seeded and geth's answers for them
// (from the database test helper, where the benches take them too), the recorded Infura answer,
// the parameter cases, and the whole of epoch 0 seeded from its era1 file.
export {
  type DerivedUncle,
  derivedUncles,
  expectedResultJson,
  mainnetBlocksFixture,
  mainnetUnclesDerived,
  seedMainnetUncles,
} from '@uncle-rpc/db/testing'

export const infuraSampleResponse = 'recorded/infura-docs/eth_getUncleByBlockHashAndIndex.response.json'
export const paramCases = 'derived/geth_param_validation_cases.json'

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
