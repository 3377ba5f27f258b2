import { bytesToHexString, hexStringToBytes } from '../bytes.js'
import { BaseError } from '../errors.js'
import type { Hex } from '../header.js'
import { sha256Pair as sha256 } from '../hashes.js'

// The era1 epoch accumulator (github.com/ethereum/portal-network-specs, history network):
// hash_tree_root(List[HeaderRecord, 8192]) with HeaderRecord = { block_hash: Bytes32,
// total_difficulty: uint256 }, SSZ merkleization with sha256.

/** Maximum records in one epoch (the SSZ list limit). */
export const epochSize = 8192
const depth = 13 // log2(epochSize)

/** One block's entry in the epoch accumulator. */
export type HeaderRecord = { blockHash: Hex; totalDifficulty: bigint }

/** An SSZ uint256: 32 bytes little-endian. */
export function uint256Le(value: bigint): Uint8Array {
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

/** Builds an epoch accumulator root from bytes, one block at a time (records are hashed as they come). */
export type EpochAccumulator = {
  /** Adds a block: its 32-byte hash and its total difficulty as 32 little-endian bytes (era1's TotalDifficulty record). */
  add(blockHash: Uint8Array, totalDifficultyLe: Uint8Array): void
  /** hash_tree_root of the records added so far. */
  root(): Uint8Array
}

/** A new, empty {@link EpochAccumulator}. */
export function createEpochAccumulator(): EpochAccumulator {
  const leaves: Uint8Array[] = []
  return {
    add(blockHash, totalDifficultyLe) {
      if (leaves.length === epochSize) throw new BaseError(`An epoch holds at most ${epochSize} header records`)
      leaves.push(sha256(blockHash, totalDifficultyLe))
    },
    root() {
      // Merkleize to depth 13 (limit 8192), then mix in the length.
      let layer = leaves
      for (let level = 0; level < depth; level++) {
        const next: Uint8Array[] = []
        for (let i = 0; i < layer.length; i += 2) next.push(sha256(layer[i]!, layer[i + 1] ?? zeroHashes[level]!))
        layer = next
      }
      return sha256(layer[0] ?? zeroHashes[depth]!, uint256Le(BigInt(leaves.length)))
    },
  }
}

/**
 * hash_tree_root of the epoch's header records, as era1's Accumulator record stores it:
 * merkleize the records' roots to depth 13 (limit 8192), then mix in the length.
 */
export function epochAccumulatorRoot(records: readonly HeaderRecord[]): Hex {
  if (records.length > epochSize) throw new BaseError(`An epoch holds at most ${epochSize} header records, got ${records.length}`)
  const accumulator = createEpochAccumulator()
  for (const r of records) accumulator.add(hexStringToBytes(r.blockHash), uint256Le(r.totalDifficulty))
  return bytesToHexString(accumulator.root())
}
