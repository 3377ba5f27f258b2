import { bytesToHexString } from './bytes.js'
import type { BlockHeader, Hex } from './header.js'
import { encodeHeaderBytes, encodeRlpListOf } from './headerBytes.js'
import { keccak256Bytes } from './hashes.js'

/** The header's RLP encoding: the preimage of its hash. */
export function headerRlp(header: BlockHeader): Hex {
  return bytesToHexString(encodeHeaderBytes(header))
}

/** keccak256(RLP(header)): the block hash, for every header era from Frontier to Prague. */
export function hashHeader(header: BlockHeader): Hex {
  return bytesToHexString(keccak256Bytes(encodeHeaderBytes(header)))
}

/** keccak256(RLP(list of uncle headers)): what a block's `sha3Uncles` commits to. */
export function hashUncles(uncles: readonly BlockHeader[]): Hex {
  return bytesToHexString(keccak256Bytes(encodeRlpListOf(uncles.map(encodeHeaderBytes))))
}
