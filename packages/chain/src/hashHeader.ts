import { keccak256, toRlp } from 'viem'
import { headerToRlpFields } from './codecs.js'
import type { BlockHeader, Hex } from './header.js'

/** The header's RLP encoding: the preimage of its hash. */
export function headerRlp(header: BlockHeader): Hex {
  return toRlp(headerToRlpFields(header))
}

/** keccak256(RLP(header)): the block hash, for every header era from Frontier to Prague. */
export function hashHeader(header: BlockHeader): Hex {
  return keccak256(headerRlp(header))
}

/** keccak256(RLP(list of uncle headers)): what a block's `sha3Uncles` commits to. */
export function hashUncles(uncles: readonly BlockHeader[]): Hex {
  return keccak256(toRlp(uncles.map(headerToRlpFields)))
}
