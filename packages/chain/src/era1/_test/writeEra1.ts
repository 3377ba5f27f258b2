import { hexToBytes, toRlp } from 'viem'
import { headerToRlpFields } from '../../codecs.js'
import { headerRlp } from '../../hashHeader.js'
import type { Era1File } from '../openEra1.js'
import type { Era1BlockInput } from '../writeEra1.js'

// Test-side helpers around the era1 writer (not product code).

export type { Era1BlockInput } from '../writeEra1.js'
export { concatBytes as concat } from '../../bytes.js'
export { e2Record, encodeSnappyFramed, writeEra1 } from '../writeEra1.js'

/** A block of an opened era1 file, re-encoded as writer input (only blocks without transactions). */
export function era1BlockInput(file: Era1File, number: bigint): Era1BlockInput {
  const block = file.block(number)
  if (block.transactionHashes.length > 0)
    throw new Error(`block ${number} has transactions; they cannot be re-encoded from hashes`)
  return {
    headerRlp: hexToBytes(headerRlp(block.header)),
    bodyRlp: hexToBytes(toRlp([[], block.uncles.map(headerToRlpFields)])),
    receiptsRlp: file.receipts(number),
    totalDifficulty: block.totalDifficulty,
    hash: block.header.hash,
  }
}
