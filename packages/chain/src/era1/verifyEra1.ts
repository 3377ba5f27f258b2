import type { Hex } from '../header.js'
import { verifyBlock } from '../verifyBlock.js'
import { epochAccumulatorRoot, type HeaderRecord } from './accumulator.js'
import type { Era1Block } from './decodeEra1Block.js'
import { type Era1Mismatch, Era1VerificationError } from './errors.js'
import type { Era1File } from './openEra1.js'

export type VerifyEra1ReturnType = { blocks: number; uncles: number; accumulatorRoot: Hex }
export type VerifyEra1Options = {
  /** Called with each block once it has passed its own checks (the file-level accumulator check comes last). */
  onBlock?: ((block: Era1Block) => void) | undefined
}

/**
 * Decodes every block of an era1 file and checks it against itself: each header and uncle
 * re-encodes to its hash and `sha3Uncles` matches (verifyBlock), parentHash links the blocks,
 * total difficulty grows by each block's difficulty, receipts pass their checksums, and the
 * SSZ epoch accumulator over (hash, total difficulty) equals the stored Accumulator record.
 * Throws BlockVerificationError, Era1VerificationError or Era1FormatError at the first problem.
 * `onBlock` hands out each decoded block, saving callers a second decoding pass.
 */
export function verifyEra1(file: Era1File, options: VerifyEra1Options = {}): VerifyEra1ReturnType {
  const records: HeaderRecord[] = []
  let uncles = 0
  let previous: Era1Block | undefined
  for (let i = 0; i < file.count; i++) {
    const number = file.startNumber + BigInt(i)
    const block = file.block(number)
    const fail = (mismatch: Era1Mismatch): never => {
      throw new Era1VerificationError({ blockNumber: number, mismatch })
    }
    verifyBlock(block.header, block.uncles)
    if (previous !== undefined) {
      if (block.header.parentHash !== previous.header.hash)
        fail({ what: 'parentHash', expected: previous.header.hash, got: block.header.parentHash })
      const expected = previous.totalDifficulty + block.header.difficulty
      if (block.totalDifficulty !== expected) fail({ what: 'totalDifficulty', expected, got: block.totalDifficulty })
    } else if (number === 0n && block.totalDifficulty !== block.header.difficulty) {
      fail({ what: 'totalDifficulty', expected: block.header.difficulty, got: block.totalDifficulty })
    }
    file.receipts(number)
    records.push({ blockHash: block.header.hash, totalDifficulty: block.totalDifficulty })
    uncles += block.uncles.length
    previous = block
    options.onBlock?.(block)
  }
  const computed = epochAccumulatorRoot(records)
  if (computed !== file.accumulatorRoot)
    throw new Era1VerificationError({ mismatch: { what: 'accumulatorRoot', expected: file.accumulatorRoot, computed } })
  return { blocks: file.count, uncles, accumulatorRoot: computed }
}
