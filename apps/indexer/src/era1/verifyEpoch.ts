import {
  type EpochRoots,
  epochSize,
  type HashedHeader,
  type Hex,
  headerFieldIndex,
  headerFromBytes,
  uncleSizeFromRlpLength,
  verifyEra1File,
} from '@uncle-rpc/chain'

// The verify stage of the era1 path: the whole file is checked before any of its rows is
// written (packages/chain's verifyEra1File: structure, snappy CRCs, every header and uncle
// re-hashed, sha3Uncles, parent links, the total-difficulty chain, the epoch accumulator against
// the file's own record, its name and the published root). Refusals are Era1FileRefusedError.

/** A block ready for the writer: what the blocks table keeps, and its uncles in full. */
export type EpochBlock = {
  header: { number: bigint; hash: Hex; parentHash: Hex }
  uncles: (HashedHeader & { size: number })[]
}

/**
 * The verified blocks of a file in a form that crosses a thread boundary cheaply: the hashes as
 * bytes in one buffer (transferred, not copied) instead of ~8,000 objects to serialize.
 * {@link epochBlocks} turns it into writer blocks.
 */
export type PackedEpochBlocks = {
  numbers: Float64Array
  /** Per block: its hash (32 bytes), then its parent's. */
  hashes: Uint8Array
  /** Blocks with uncles only: their position in `numbers`, and the uncles in full. */
  uncles: { at: number; uncles: EpochBlock['uncles'] }[]
}

export type VerifyEpochParameters = {
  bytes: Uint8Array
  /** The file's name (`<network>-<epoch>-<root8>.era1`). */
  name: string
  /** Published roots of the chain, when known. */
  roots?: EpochRoots | undefined
  /** Only blocks in these ranges are returned (the file is verified whole regardless). */
  want: readonly { from: bigint; to: bigint }[]
}

export type VerifiedEpoch = { blocks: PackedEpochBlocks; uncles: number; root: Hex; count: number }

/** Verifies the whole file, then returns its blocks in `want`. Throws Era1FileRefusedError. */
export function verifyEpoch({ bytes, name, roots, want }: VerifyEpochParameters): VerifiedEpoch {
  const wanted = (n: bigint) => want.some((r) => n >= r.from && n <= r.to)
  const numbers: number[] = []
  const uncles: PackedEpochBlocks['uncles'] = []
  // Note: sized for a full epoch up front; trimmed to the blocks wanted at the end.
  let hashes = new Uint8Array(64 * epochSize)
  const result = verifyEra1File({
    bytes,
    file: name,
    roots,
    // Note: the byte form; only uncles (~8% of blocks) become hex and bigints here.
    onRawBlock(block) {
      if (!wanted(block.number)) return
      const at = numbers.length
      if (64 * (at + 1) > hashes.length) {
        const grown = new Uint8Array(hashes.length * 2)
        grown.set(hashes)
        hashes = grown
      }
      hashes.set(block.header.hash, 64 * at)
      hashes.set(block.header.fields[headerFieldIndex.parentHash] as Uint8Array, 64 * at + 32)
      numbers.push(Number(block.number))
      if (block.uncles.length > 0)
        uncles.push({ at, uncles: block.uncles.map((u) => ({ ...headerFromBytes(u), size: uncleSizeFromRlpLength(u.rlp.length) })) })
    },
  })
  return {
    blocks: { numbers: Float64Array.from(numbers), hashes: hashes.slice(0, 64 * numbers.length), uncles },
    uncles: result.uncles,
    root: result.accumulatorRoot,
    count: result.blocks,
  }
}

/** The writer's blocks of a {@link PackedEpochBlocks}, in file order. */
export function epochBlocks({ numbers, hashes, uncles }: PackedEpochBlocks): EpochBlock[] {
  const hex = Buffer.from(hashes.buffer, hashes.byteOffset, hashes.byteLength)
  const blocks: EpochBlock[] = []
  for (let i = 0; i < numbers.length; i++)
    blocks.push({
      header: {
        number: BigInt(numbers[i]!),
        hash: `0x${hex.toString('hex', 64 * i, 64 * i + 32)}`,
        parentHash: `0x${hex.toString('hex', 64 * i + 32, 64 * i + 64)}`,
      },
      uncles: [],
    })
  for (const { at, uncles: list } of uncles) blocks[at]!.uncles = list
  return blocks
}
