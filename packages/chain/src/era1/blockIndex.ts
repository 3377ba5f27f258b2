import { epochSize } from './accumulator.js'
import { e2HeaderSize } from './e2store.js'
import { Era1FormatError } from './errors.js'

// An era1 file ends with its BlockIndex record:
//   e2store header (8) | starting-number u64 | offset i64 × count | count u64
// so the last 8 bytes give the count, and the count gives where the record starts.

/** Where an era1 file's BlockIndex record is, from the file's size and the count in its last 8 bytes. */
export type BlockIndexPlace = {
  /** Blocks in the file (1 to 8192). */
  count: number
  /** Byte offset of the BlockIndex record (its e2store header). */
  recordStart: number
  /** Byte offset of the starting block number (u64, little-endian). */
  startNumberAt: number
  /** Byte offset of the first block's offset (i64, little-endian, relative to `recordStart`). */
  offsetsAt: number
}

/**
 * Locates the BlockIndex of an era1 file of `fileSize` bytes whose last 8 bytes read `count`.
 * The one reading of the index layout: openEra1 and the indexer's file listing both use it.
 * Throws Era1FormatError when the count is not 1–8192 or the record does not fit in the file.
 */
export function locateBlockIndex(fileSize: number, count: bigint): BlockIndexPlace {
  if (count < 1n || count > BigInt(epochSize))
    throw new Era1FormatError({ offset: fileSize - 8, reason: `block index count is ${count}, expected 1–${epochSize}` })
  const blocks = Number(count)
  const recordStart = fileSize - e2HeaderSize - (16 + 8 * blocks)
  if (recordStart < e2HeaderSize)
    throw new Era1FormatError({ offset: fileSize - 8, reason: `block index of ${blocks} entries does not fit in the file` })
  return { count: blocks, recordStart, startNumberAt: recordStart + e2HeaderSize, offsetsAt: recordStart + e2HeaderSize + 8 }
}
