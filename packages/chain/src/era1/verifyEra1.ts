import { bytesEqual, bytesToBigInt, bytesToHexString } from '../bytes.js'
import type { Hex } from '../header.js'
import { headerFieldIndex } from '../headerBytes.js'
import { keccak256Bytes } from '../hashes.js'
import { BlockVerificationError } from '../verifyBlock.js'
import { createEpochAccumulator } from './accumulator.js'
import type { Era1Block } from './decodeEra1Block.js'
import { type Era1RawBlock, era1BlockFromRaw } from './decodeEra1RawBlock.js'
import { type Era1Mismatch, Era1VerificationError } from './errors.js'
import type { Era1File } from './openEra1.js'

export type VerifyEra1ReturnType = { blocks: number; uncles: number; accumulatorRoot: Hex }
export type VerifyEra1Options = {
  /** Called with each block in domain form once it has passed its own checks (the file-level accumulator check comes last). */
  onBlock?: ((block: Era1Block) => void) | undefined
  /** Same as `onBlock` with the byte form (cheaper: no hex conversions). */
  onRawBlock?: ((block: Era1RawBlock) => void) | undefined
  /**
   * The published accumulator root of this file's epoch. When given, the computed root must
   * equal it as well as the file's own Accumulator record (a self-consistent forgery fails here).
   */
  expectedRoot?: Hex | undefined
}

const { parentHash, sha3Uncles, difficulty } = headerFieldIndex

const emptyUnclesHash = keccak256Bytes(Uint8Array.of(0xc0))

function fail(blockNumber: bigint, mismatch: Era1Mismatch): never {
  throw new Era1VerificationError({ blockNumber, mismatch })
}

/**
 * Decodes every block of an era1 file and checks it against itself: headers and uncles decode
 * strictly (so their hashes, taken over the stored bytes, are the hashes of the decoded values),
 * keccak256 of the uncle list is `sha3Uncles`, parentHash links the blocks, total difficulty
 * grows by each block's difficulty, receipts pass their checksums, and the SSZ epoch accumulator
 * over (hash, total difficulty) equals the stored Accumulator record (and `expectedRoot`).
 * Throws BlockVerificationError, Era1VerificationError or Era1FormatError at the first problem.
 * `onBlock`/`onRawBlock` hand out each decoded block, saving callers a second decoding pass.
 */
export function verifyEra1(file: Era1File, options: VerifyEra1Options = {}): VerifyEra1ReturnType {
  const accumulator = createEpochAccumulator()
  const { onBlock, onRawBlock } = options
  let uncles = 0
  let previous: Era1RawBlock | undefined
  for (let i = 0; i < file.count; i++) {
    const number = file.startNumber + BigInt(i)
    const block = file.rawBlock(number)
    const fields = block.header.fields
    // Note: most blocks have no uncles; keccak256(RLP([])) is a constant.
    const unclesHash = block.unclesRlp.length === 1 ? emptyUnclesHash : keccak256Bytes(block.unclesRlp)
    if (!bytesEqual(unclesHash, fields[sha3Uncles]!))
      throw new BlockVerificationError({
        blockNumber: number,
        blockHash: bytesToHexString(block.header.hash),
        mismatch: { what: 'sha3Uncles', expected: bytesToHexString(fields[sha3Uncles]!), computed: bytesToHexString(unclesHash) },
      })
    const blockDifficulty = bytesToBigInt(fields[difficulty]!)
    if (previous !== undefined) {
      if (!bytesEqual(fields[parentHash]!, previous.header.hash))
        fail(number, {
          what: 'parentHash',
          expected: bytesToHexString(previous.header.hash),
          got: bytesToHexString(fields[parentHash]!),
        })
      const expected = previous.totalDifficulty + blockDifficulty
      if (block.totalDifficulty !== expected) fail(number, { what: 'totalDifficulty', expected, got: block.totalDifficulty })
    } else if (number === 0n && block.totalDifficulty !== blockDifficulty) {
      fail(number, { what: 'totalDifficulty', expected: blockDifficulty, got: block.totalDifficulty })
    }
    file.receipts(number)
    accumulator.add(block.header.hash, block.totalDifficultyLe)
    uncles += block.uncles.length
    previous = block
    onRawBlock?.(block)
    if (onBlock) onBlock(era1BlockFromRaw(block))
  }
  const computed = bytesToHexString(accumulator.root())
  if (computed !== file.accumulatorRoot)
    throw new Era1VerificationError({ mismatch: { what: 'accumulatorRoot', expected: file.accumulatorRoot, computed } })
  if (options.expectedRoot !== undefined && computed !== options.expectedRoot.toLowerCase())
    throw new Era1VerificationError({
      mismatch: { what: 'publishedRoot', epoch: Number(file.startNumber / 8192n), expected: options.expectedRoot, computed },
    })
  return { blocks: file.count, uncles, accumulatorRoot: computed }
}
