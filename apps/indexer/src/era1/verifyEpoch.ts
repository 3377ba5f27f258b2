import {
  bytesToHexString,
  type EpochRoots,
  type HashedHeader,
  type Hex,
  headerFieldIndex,
  headerFromBytes,
  rlpListLength,
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

export type VerifyEpochParameters = {
  bytes: Uint8Array
  /** The file's name (`<network>-<epoch>-<root8>.era1`). */
  name: string
  /** Published roots of the chain, when known. */
  roots?: EpochRoots | undefined
  /** Only blocks in these ranges are returned (the file is verified whole regardless). */
  want: readonly { from: bigint; to: bigint }[]
}

export type VerifiedEpoch = { blocks: EpochBlock[]; uncles: number; root: Hex; count: number }

/** Verifies the whole file, then returns its blocks in `want`. Throws Era1FileRefusedError. */
export function verifyEpoch({ bytes, name, roots, want }: VerifyEpochParameters): VerifiedEpoch {
  const wanted = (n: bigint) => want.some((r) => n >= r.from && n <= r.to)
  const blocks: EpochBlock[] = []
  const result = verifyEra1File({
    bytes,
    file: name,
    roots,
    // Note: the byte form; only what the writer stores becomes hex (and uncles, ~8% of blocks, in full).
    onRawBlock(block) {
      if (!wanted(block.number)) return
      blocks.push({
        header: {
          number: block.number,
          hash: bytesToHexString(block.header.hash),
          parentHash: bytesToHexString(block.header.fields[headerFieldIndex.parentHash] as Uint8Array),
        },
        // geth's uncle `size`: RLP of [header, [], []].
        uncles: block.uncles.map((u) => ({ ...headerFromBytes(u), size: rlpListLength(u.rlp.length + 2) })),
      })
    },
  })
  return { blocks, uncles: result.uncles, root: result.accumulatorRoot, count: result.blocks }
}
