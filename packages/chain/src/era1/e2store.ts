import { Era1FormatError } from './errors.js'

// e2store (github.com/status-im/nimbus-eth2 docs/e2store.md): a flat sequence of records, each an
// 8-byte header [type u16 LE][length u32 LE][reserved u16 = 0] followed by `length` bytes of data.

/** The e2store record types an era1 file uses. */
export const e2Type = {
  version: 0x3265,
  compressedHeader: 0x03,
  compressedBody: 0x04,
  compressedReceipts: 0x05,
  totalDifficulty: 0x06,
  accumulator: 0x07,
  blockIndex: 0x3266,
} as const

/** Size of an e2store record header. */
export const e2HeaderSize = 8

/** One record's place in the file: `start` is its header, data is `[dataStart, end)`. */
export type E2Record = { type: number; start: number; dataStart: number; end: number }

/**
 * Reads the record whose header starts at `offset`. Throws {@link Era1FormatError} (naming
 * `blockNumber` when given) if it is cut off or malformed.
 */
export function readE2Record(bytes: Uint8Array, offset: number, blockNumber?: bigint): E2Record {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset + e2HeaderSize > bytes.length)
    throw new Era1FormatError({
      offset,
      blockNumber,
      reason: `no record header at byte ${offset} (file is ${bytes.length} bytes)`,
    })
  const type = bytes[offset]! | (bytes[offset + 1]! << 8)
  const length = (bytes[offset + 2]! | (bytes[offset + 3]! << 8) | (bytes[offset + 4]! << 16) | (bytes[offset + 5]! << 24)) >>> 0
  const reserved = bytes[offset + 6]! | (bytes[offset + 7]! << 8)
  if (reserved !== 0)
    throw new Era1FormatError({ offset, blockNumber, reason: `record reserved bytes are 0x${reserved.toString(16)}, not 0` })
  const dataStart = offset + e2HeaderSize
  const end = dataStart + length
  if (end > bytes.length)
    throw new Era1FormatError({
      offset,
      blockNumber,
      reason: `record of type 0x${type.toString(16)} claims ${length} bytes but the file ends ${bytes.length - dataStart} bytes later`,
    })
  return { type, start: offset, dataStart, end }
}

/** Reads the record at `offset` and checks its type (and data length, when given). */
export function expectE2Record(
  bytes: Uint8Array,
  offset: number,
  { type, name, length, blockNumber }: { type: number; name: string; length?: number; blockNumber?: bigint },
): E2Record {
  const record = readE2Record(bytes, offset, blockNumber)
  if (record.type !== type)
    throw new Era1FormatError({
      offset,
      blockNumber,
      reason: `expected ${name} record (type 0x${type.toString(16)}), found type 0x${record.type.toString(16)}`,
    })
  if (length !== undefined && record.end - record.dataStart !== length)
    throw new Era1FormatError({
      offset,
      blockNumber,
      reason: `${name} record holds ${record.end - record.dataStart} bytes, expected ${length}`,
    })
  return record
}
