import { createHash } from 'node:crypto'
import { bytesToHex, hexToBytes } from 'viem'
import { BaseError } from '../errors.js'
import type { Hex } from '../header.js'

// The era1 epoch accumulator (github.com/ethereum/portal-network-specs, history network):
// hash_tree_root(List[HeaderRecord, 8192]) with HeaderRecord = { block_hash: Bytes32,
// total_difficulty: uint256 }, SSZ merkleization with sha256.

/** Maximum records in one epoch (the SSZ list limit). */
export const epochSize = 8192
const depth = 13 // log2(epochSize)

/** One block's entry in the epoch accumulator. */
export type HeaderRecord = { blockHash: Hex; totalDifficulty: bigint }

function sha256(a: Uint8Array, b: Uint8Array): Uint8Array {
  return createHash('sha256').update(a).update(b).digest()
}

/** An SSZ uint256: 32 bytes little-endian. */
function uint256Le(value: bigint): Uint8Array {
  const out = new Uint8Array(32)
  let v = value
  for (let i = 0; i < 32 && v > 0n; i++) {
    out[i] = Number(v & 0xffn)
    v >>= 8n
  }
  return out
}

const zeroHashes: Uint8Array[] = [new Uint8Array(32)]
for (let i = 1; i <= depth; i++) zeroHashes.push(sha256(zeroHashes[i - 1]!, zeroHashes[i - 1]!))

/**
 * hash_tree_root of the epoch's header records, as era1's Accumulator record stores it:
 * merkleize the records' roots to depth 13 (limit 8192), then mix in the length.
 */
export function epochAccumulatorRoot(records: readonly HeaderRecord[]): Hex {
  if (records.length > epochSize) throw new BaseError(`An epoch holds at most ${epochSize} header records, got ${records.length}`)
  let layer = records.map((r) => sha256(hexToBytes(r.blockHash), uint256Le(r.totalDifficulty)))
  for (let level = 0; level < depth; level++) {
    const next: Uint8Array[] = []
    for (let i = 0; i < layer.length; i += 2) next.push(sha256(layer[i]!, layer[i + 1] ?? zeroHashes[level]!))
    layer = next
  }
  const root = layer[0] ?? zeroHashes[depth]!
  return bytesToHex(sha256(root, uint256Le(BigInt(records.length))))
}
