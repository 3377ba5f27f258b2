import type { HashedHeader, Hex } from '@uncle-rpc/chain'

/** A block as a chain source holds it: what eth_getBlockBy* and eth_getUncleBy* answer from. */
export type ChainBlock = {
  header: HashedHeader
  uncles: readonly HashedHeader[]
  /** geth's `size` of each uncle (RLP of `[uncle, [], []]`); computed from the header when absent. */
  uncleSizes?: readonly number[] | undefined
  transactionHashes: readonly Hex[]
  totalDifficulty: bigint
  /** RLP length of `[header, transactions, uncles]`. */
  size: number
}

/** Where the sample node's blocks come from: era1 archives or a generated chain. */
export type ChainSource = {
  /** One line for the startup message, e.g. `synthetic 10000 blocks, seed 1`. */
  description: string
  chainId: bigint
  /** Number of the canonical head. */
  head(): bigint
  /** The canonical block at `number`, or undefined past the head. */
  blockByNumber(number: bigint): ChainBlock | undefined
  /** Any block the node knows by this hash (canonical, or a side block kept after a reorg). */
  blockByHash(hash: Hex): ChainBlock | undefined
}
