import {
  BaseError,
  bytesToHexString,
  type HashedHeader,
  type Hex,
  headerFieldIndex,
  headerFromBytes,
  openEra1,
  rlpListLength,
  verifyEra1,
} from '@uncle-rpc/chain'
import { parseEra1Name } from './store.js'

// Verification of one era1 file before any of its rows is written: structure, snappy CRCs,
// every header and uncle re-hashed, sha3Uncles, parent links, the total-difficulty chain, the
// epoch accumulator against the file's own record (all in packages/chain's verifyEra1), and
// here: the file's place (its name's epoch and root prefix) and the published root for the epoch.

/** A block ready for the writer: what the blocks table keeps, and its uncles in full. */
export type EpochBlock = {
  header: { number: bigint; hash: Hex; parentHash: Hex }
  uncles: (HashedHeader & { size: number })[]
}

export type VerifyEpochParameters = {
  bytes: Uint8Array
  /** The file's name (`<network>-<epoch>-<root8>.era1`). */
  name: string
  epoch: number
  /** The published root of this epoch, when known. */
  root?: Hex | undefined
  /** Only blocks in these ranges are returned (the file is verified whole regardless). */
  want: readonly { from: bigint; to: bigint }[]
}

export type VerifiedEpoch = { blocks: EpochBlock[]; uncles: number; root: Hex; count: number }

/** An era1 file failed verification: nothing of it is written. */
export class Era1RefusedError extends BaseError {
  readonly epoch: number
  readonly file: string
  readonly reason: string
  constructor({ epoch, file, reason }: { epoch: number; file: string; reason: string }) {
    super(`era1 file ${file} (epoch ${epoch}) refused: ${reason}`, { name: 'Era1RefusedError' })
    this.epoch = epoch
    this.file = file
    this.reason = reason
  }
}

/** Verifies the whole file, then returns its blocks in `want`. Throws {@link Era1RefusedError}. */
export function verifyEpoch({ bytes, name, epoch, root, want }: VerifyEpochParameters): VerifiedEpoch {
  const refuse = (reason: string): never => {
    throw new Era1RefusedError({ epoch, file: name, reason })
  }
  const wanted = (n: bigint) => want.some((r) => n >= r.from && n <= r.to)
  const blocks: EpochBlock[] = []
  let result: { uncles: number; accumulatorRoot: Hex; blocks: number }
  try {
    const file = openEra1(bytes)
    if (file.startNumber !== BigInt(epoch) * 8192n) refuse(`it starts at block ${file.startNumber}, not at epoch ${epoch}'s first block ${BigInt(epoch) * 8192n}`)
    result = verifyEra1(file, {
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
  } catch (error) {
    if (error instanceof Era1RefusedError) throw error
    return refuse(error instanceof BaseError ? error.shortMessage : String(error))
  }
  const computed = result.accumulatorRoot
  if (root !== undefined && computed !== root) refuse(`epoch accumulator root ${computed} is not the published root ${root}`)
  const root8 = parseEra1Name(name)?.root8
  if (root8 !== undefined && computed.slice(2, 10) !== root8) refuse(`epoch accumulator root ${computed} does not start with ${root8} as its name says`)
  return { blocks, uncles: result.uncles, root: computed, count: result.blocks }
}
