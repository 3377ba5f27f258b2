import { type Hex, verifyBlock } from '@uncle-rpc/chain'
import type { ChainBlock, ChainSource } from '../sources/chainSource.js'

export type ChainCheckSummary = { blocks: number; blocksWithUncles: number; uncles: number; maxUncles: number }

/**
 * Verifies canonical blocks [from, to] of a chain source end to end, as an indexer would:
 * verifyBlock (hashes, sha3Uncles, uncle list), parent links, total difficulty, timestamps, and
 * geth's uncle rules (parent among the 7 ancestors but not the block's parent, number = parent+1,
 * not a canonical block, never included twice). `ancestors` are the 7 blocks before `from`.
 */
export function verifyChainRange(chain: ChainSource, from: bigint, to: bigint): ChainCheckSummary {
  const window: ChainBlock[] = []
  for (let n = from - 7n > 0n ? from - 7n : 0n; n < from; n++) window.push(chain.blockByNumber(n) as ChainBlock)
  const included = new Set<Hex>()
  const summary: ChainCheckSummary = { blocks: 0, blocksWithUncles: 0, uncles: 0, maxUncles: 0 }
  for (let n = from; n <= to; n++) {
    const block = chain.blockByNumber(n)
    if (!block) throw new Error(`block ${n} missing`)
    const { header } = block
    if (header.number !== n) throw new Error(`block ${n} has number ${header.number}`)
    verifyBlock({ ...header, uncles: block.uncles.map((u) => u.hash) }, block.uncles)
    const parent = window.at(-1)
    if (parent) {
      if (header.parentHash !== parent.header.hash) throw new Error(`block ${n} does not link to its parent`)
      if (block.totalDifficulty !== parent.totalDifficulty + header.difficulty) throw new Error(`block ${n}: bad TD`)
      if (header.timestamp <= parent.header.timestamp) throw new Error(`block ${n}: timestamp not increasing`)
    }
    const ancestors = new Map(window.map((b) => [b.header.hash, b]))
    for (const uncle of block.uncles) {
      const uncleParent = ancestors.get(uncle.parentHash)
      if (!uncleParent || uncle.parentHash === header.parentHash) throw new Error(`block ${n}: uncle ${uncle.hash} dangles`)
      if (uncle.number !== uncleParent.header.number + 1n) throw new Error(`block ${n}: uncle number`)
      const canonical = window.find((b) => b.header.number === uncle.number)
      if (canonical?.header.hash === uncle.hash) throw new Error(`block ${n}: uncle is canonical`)
      if (included.has(uncle.hash)) throw new Error(`block ${n}: uncle included twice`)
      included.add(uncle.hash)
    }
    summary.blocks++
    summary.uncles += block.uncles.length
    if (block.uncles.length > 0) summary.blocksWithUncles++
    summary.maxUncles = Math.max(summary.maxUncles, block.uncles.length)
    window.push(block)
    if (window.length > 7) window.shift()
  }
  return summary
}
