import { bytesToHexString } from '../bytes.js'
import type { Hex } from '../header.js'
import { locateBlockIndex } from './blockIndex.js'
import type { Era1Block } from './decodeEra1Block.js'
import { decodeEra1RawBlock, type Era1RawBlock, era1BlockFromRaw } from './decodeEra1RawBlock.js'
import { type E2Record, e2HeaderSize, e2Type, expectE2Record, readE2Record } from './e2store.js'
import { Era1BlockRangeError, Era1FormatError, Era1VerificationError } from './errors.js'
import { isWholeRlpList } from './rlpListPrefix.js'
import { decodeSnappyFramed } from './snappyFrames.js'

// era1 (github.com/ethereum/go-ethereum internal/era, and the portal/e2store docs):
//   Version | (CompressedHeader | CompressedBody | CompressedReceipts | TotalDifficulty)*
//   | other-entries* | Accumulator | BlockIndex
// BlockIndex = starting-number u64 | offset i64 × count | count u64, offsets relative to the
// start of the BlockIndex record, each pointing at a block's CompressedHeader record.

/** An opened era1 file: the index is parsed, blocks are decoded on demand. */
export type Era1File = {
  /** Number of the first block in the file. */
  startNumber: bigint
  /** How many blocks the file holds (8192 for a full epoch). */
  count: number
  /** The epoch accumulator root the file stores (not yet checked: see `verifyEra1`). */
  accumulatorRoot: Hex
  /** Decodes one block. Throws {@link Era1BlockRangeError} outside the file, {@link Era1FormatError} if its records are corrupt. */
  block(number: bigint): Era1Block
  /**
   * Decodes one block to bytes only (the fast path: no hex, transactions not hashed), checking
   * its snappy CRCs and that the header's number is `number`. Same errors as `block`.
   */
  rawBlock(number: bigint): Era1RawBlock
  /** The block's receipts as stored (RLP), decompressed and checksum-checked but not decoded. */
  receipts(number: bigint): Uint8Array
}

type BlockRecords = { header: E2Record; body: E2Record; receipts: E2Record; totalDifficulty: E2Record }

/**
 * Opens an era1 file held in memory: checks the Version record, the BlockIndex, the Accumulator
 * record and that every block tuple sits where the index says (record headers only, no decoding).
 * Throws {@link Era1FormatError} naming the byte offset (and block) of the first problem.
 */
export function openEra1(input: Uint8Array): Era1File {
  // Note: a plain Uint8Array view (not a Buffer) so that snappyjs also returns plain Uint8Arrays.
  const bytes = new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const fail = (offset: number, reason: string): never => {
    throw new Era1FormatError({ offset, reason })
  }

  expectE2Record(bytes, 0, { type: e2Type.version, name: 'Version', length: 0 })
  if (bytes.length < 2 * e2HeaderSize + 24) fail(0, `file of ${bytes.length} bytes is too short for an era1 file`)
  const index = locateBlockIndex(bytes.length, view.getBigUint64(bytes.length - 8, true))
  const { count, recordStart: indexStart } = index
  expectE2Record(bytes, indexStart, { type: e2Type.blockIndex, name: 'BlockIndex', length: 16 + 8 * count })
  const startNumber = view.getBigUint64(index.startNumberAt, true)

  const accumulatorStart = indexStart - e2HeaderSize - 32
  const accumulator = expectE2Record(bytes, accumulatorStart, { type: e2Type.accumulator, name: 'Accumulator', length: 32 })
  const accumulatorRoot = bytesToHexString(bytes.subarray(accumulator.dataStart, accumulator.end))

  const offsets: number[] = []
  for (let i = 0; i < count; i++) {
    const at = index.offsetsAt + 8 * i
    offsets.push(indexStart + Number(view.getBigInt64(at, true)))
  }

  const readTuple = (i: number, blockNumber: bigint): BlockRecords => {
    const header = expectE2Record(bytes, offsets[i]!, { type: e2Type.compressedHeader, name: 'CompressedHeader', blockNumber })
    const body = expectE2Record(bytes, header.end, { type: e2Type.compressedBody, name: 'CompressedBody', blockNumber })
    const receipts = expectE2Record(bytes, body.end, { type: e2Type.compressedReceipts, name: 'CompressedReceipts', blockNumber })
    const totalDifficulty = expectE2Record(bytes, receipts.end, {
      type: e2Type.totalDifficulty,
      name: 'TotalDifficulty',
      blockNumber,
      length: 32,
    })
    return { header, body, receipts, totalDifficulty }
  }

  // Walk the record headers once: every tuple must start where the index says, contiguously.
  // Note: the tuples are kept, so decoding a block does not read its record headers again.
  const tuples: BlockRecords[] = []
  let pos = e2HeaderSize
  for (let i = 0; i < count; i++) {
    const blockNumber = startNumber + BigInt(i)
    if (offsets[i] !== pos)
      throw new Era1FormatError({
        offset: indexStart,
        blockNumber,
        reason: `block index points at byte ${offsets[i]}, but the block's records start at byte ${pos}`,
      })
    const tuple = readTuple(i, blockNumber)
    tuples.push(tuple)
    pos = tuple.totalDifficulty.end
  }
  while (pos < accumulatorStart) pos = readE2Record(bytes, pos).end // other-entries*: skipped
  if (pos !== accumulatorStart) fail(pos, `records overrun the Accumulator record at byte ${accumulatorStart}`)

  const locate = (number: bigint): { i: number; records: BlockRecords } => {
    if (number < startNumber || number >= startNumber + BigInt(count))
      throw new Era1BlockRangeError({ blockNumber: number, startNumber, count })
    const i = Number(number - startNumber)
    return { i, records: tuples[i]! }
  }

  const decompress = (record: E2Record, name: string, blockNumber: bigint): Uint8Array => {
    try {
      return decodeSnappyFramed(bytes.subarray(record.dataStart, record.end))
    } catch (error) {
      throw new Era1FormatError({ offset: record.start, blockNumber, reason: `${name} record is corrupt`, cause: error })
    }
  }

  const rawBlock = (number: bigint): Era1RawBlock => {
    const { records } = locate(number)
    const headerRlp = decompress(records.header, 'CompressedHeader', number)
    const bodyRlp = decompress(records.body, 'CompressedBody', number)
    const td = records.totalDifficulty
    let block: Era1RawBlock
    try {
      block = decodeEra1RawBlock({ headerRlp, bodyRlp, totalDifficulty: bytes.subarray(td.dataStart, td.end) })
    } catch (error) {
      throw new Era1FormatError({
        offset: records.header.start,
        blockNumber: number,
        reason: 'header or body does not decode',
        cause: error,
      })
    }
    if (block.number !== number)
      throw new Era1VerificationError({
        blockNumber: number,
        mismatch: { what: 'blockNumber', expected: number, got: block.number },
      })
    return block
  }

  return {
    startNumber,
    count,
    accumulatorRoot,
    block: (number) => era1BlockFromRaw(rawBlock(number)),
    rawBlock,
    receipts(number) {
      const { records } = locate(number)
      const receipts = decompress(records.receipts, 'CompressedReceipts', number)
      // Note: receipts are not decoded, so at least check they are one whole RLP list (a
      // flipped chunk type can make a framed stream skip its data and decode to nothing).
      if (!isWholeRlpList(receipts))
        throw new Era1FormatError({
          offset: records.receipts.start,
          blockNumber: number,
          reason: 'receipts are not one RLP list',
        })
      return receipts
    },
  }
}
