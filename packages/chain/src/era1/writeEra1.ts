import { compress } from 'snappyjs'
import { bytesToHexString, concatBytes, hexStringToBytes } from '../bytes.js'
import type { Hex } from '../header.js'
import { createEpochAccumulator, epochSize, uint256Le } from './accumulator.js'
import { crc32c, maskCrc32c } from './crc32c.js'
import { e2Type } from './e2store.js'

// The era1 writer: the inverse of openEra1. Version | (CompressedHeader | CompressedBody |
// CompressedReceipts | TotalDifficulty)* | Accumulator | BlockIndex, payloads snappy-framed.

const streamIdentifier = Uint8Array.of(0xff, 6, 0, 0, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59)
const maxChunk = 65536

/**
 * Encodes bytes as a snappy framed stream: the stream identifier, then chunks of at most
 * `chunkSize` (≤ 64 KiB) bytes, each snappy-compressed unless `uncompressed`, with its masked CRC-32C.
 */
export function encodeSnappyFramed(data: Uint8Array, { chunkSize = maxChunk, uncompressed = false } = {}): Uint8Array {
  const chunks: Uint8Array[] = [streamIdentifier]
  for (let at = 0; at < data.length || at === 0; at += chunkSize) {
    const part = data.subarray(at, at + chunkSize)
    const body = uncompressed ? part : compress(part)
    const chunk = new Uint8Array(8 + body.length)
    const length = 4 + body.length
    chunk[0] = uncompressed ? 0x01 : 0x00
    chunk[1] = length & 0xff
    chunk[2] = (length >> 8) & 0xff
    chunk[3] = length >> 16
    new DataView(chunk.buffer).setUint32(4, maskCrc32c(crc32c(part)), true)
    chunk.set(body, 8)
    chunks.push(chunk)
    if (data.length === 0) break
  }
  return concatBytes(chunks)
}

/** One e2store record: [type u16 LE][length u32 LE][0 u16][data]. */
export function e2Record(type: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + data.length)
  const view = new DataView(out.buffer)
  view.setUint16(0, type, true)
  view.setUint32(2, data.length, true)
  out.set(data, 8)
  return out
}

/** One block to write: its payloads as RLP, its total difficulty and its hash (for the accumulator). */
export type Era1BlockInput = {
  headerRlp: Uint8Array
  /** RLP `[transactions, uncles]`. */
  bodyRlp: Uint8Array
  receiptsRlp: Uint8Array
  totalDifficulty: bigint
  hash: Hex | Uint8Array
}

export type Era1WriterOptions = {
  /** Number of the first block (an epoch's first block, 8192·epoch, for a standard file). */
  startNumber: bigint
  /** Store payloads in uncompressed snappy chunks (valid era1, faster to write, larger). Default false. */
  uncompressed?: boolean | undefined
}

/** Builds one era1 file block by block. */
export type Era1Writer = {
  /** Appends the next block (at most 8,192 per file). */
  add(block: Era1BlockInput): void
  /** Blocks added so far. */
  readonly count: number
  /**
   * The finished file. Its Accumulator record is the root computed from the blocks unless
   * `accumulatorRoot` is given (tests use that to write an inconsistent file).
   */
  finish(options?: { accumulatorRoot?: Hex | undefined }): { bytes: Uint8Array; accumulatorRoot: Hex }
}

/** A new {@link Era1Writer} (the file is assembled in memory: ~5 MB for a full synthetic epoch). */
export function createEra1Writer({ startNumber, uncompressed = false }: Era1WriterOptions): Era1Writer {
  const sink = createSink()
  const offsets: number[] = []
  const accumulator = createEpochAccumulator()
  sink.record(e2Type.version, 0)
  return {
    get count() {
      return offsets.length
    },
    add(block) {
      if (offsets.length === epochSize) throw new RangeError(`an era1 file holds at most ${epochSize} blocks`)
      offsets.push(sink.length)
      writeFramedRecord(sink, e2Type.compressedHeader, block.headerRlp, uncompressed)
      writeFramedRecord(sink, e2Type.compressedBody, block.bodyRlp, uncompressed)
      writeFramedRecord(sink, e2Type.compressedReceipts, block.receiptsRlp, uncompressed)
      const td = uint256Le(block.totalDifficulty)
      sink.record(e2Type.totalDifficulty, 32)
      sink.bytes(td)
      accumulator.add(typeof block.hash === 'string' ? hexStringToBytes(block.hash) : block.hash, td)
    },
    finish(options = {}) {
      const accumulatorRoot = options.accumulatorRoot ?? bytesToHexString(accumulator.root())
      sink.record(e2Type.accumulator, 32)
      sink.bytes(hexStringToBytes(accumulatorRoot))
      const indexStart = sink.length
      const index = new Uint8Array(16 + 8 * offsets.length)
      const view = new DataView(index.buffer)
      view.setBigUint64(0, startNumber, true)
      offsets.forEach((offset, i) => view.setBigInt64(8 + 8 * i, BigInt(offset - indexStart), true))
      view.setBigUint64(8 + 8 * offsets.length, BigInt(offsets.length), true)
      sink.record(e2Type.blockIndex, index.length)
      sink.bytes(index)
      return { bytes: sink.result(), accumulatorRoot }
    },
  }
}

// A growing output buffer, so records are written in place rather than built and concatenated.
type Sink = {
  readonly length: number
  record(type: number, length: number): void
  bytes(data: Uint8Array): void
  reserve(n: number): number
  result(): Uint8Array
  buffer(): Uint8Array
}

function createSink(): Sink {
  let buffer = new Uint8Array(1 << 20)
  let length = 0
  const reserve = (n: number): number => {
    if (length + n > buffer.length) {
      const grown = new Uint8Array(Math.max(buffer.length * 2, length + n))
      grown.set(buffer.subarray(0, length))
      buffer = grown
    }
    const at = length
    length += n
    return at
  }
  return {
    get length() {
      return length
    },
    record(type, dataLength) {
      const at = reserve(8)
      buffer[at] = type & 0xff
      buffer[at + 1] = type >> 8
      writeU32(buffer, at + 2, dataLength)
      buffer[at + 6] = 0
      buffer[at + 7] = 0
    },
    bytes(data) {
      const at = reserve(data.length) // Note: may replace `buffer`, so reserve first
      buffer.set(data, at)
    },
    reserve,
    result: () => buffer.slice(0, length),
    buffer: () => buffer,
  }
}

function writeU32(out: Uint8Array, at: number, value: number): void {
  out[at] = value & 0xff
  out[at + 1] = (value >>> 8) & 0xff
  out[at + 2] = (value >>> 16) & 0xff
  out[at + 3] = value >>> 24
}

// Payloads this short never shrink under snappy; they go in an uncompressed chunk.
const compressFrom = 32

// One e2store record holding `data` as a snappy framed stream, written in place.
function writeFramedRecord(sink: Sink, type: number, data: Uint8Array, uncompressed: boolean): void {
  if (data.length > maxChunk) {
    const framed = encodeSnappyFramed(data, { uncompressed })
    sink.record(type, framed.length)
    sink.bytes(framed)
    return
  }
  const raw = uncompressed || data.length < compressFrom
  const body = raw ? data : compress(data)
  sink.record(type, streamIdentifier.length + 8 + body.length)
  sink.bytes(streamIdentifier)
  const at = sink.reserve(8)
  const out = sink.buffer()
  const chunkLength = 4 + body.length
  out[at] = raw ? 0x01 : 0x00
  out[at + 1] = chunkLength & 0xff
  out[at + 2] = (chunkLength >> 8) & 0xff
  out[at + 3] = chunkLength >> 16
  writeU32(out, at + 4, maskCrc32c(crc32c(data)))
  sink.bytes(body)
}

/** Writes a whole era1 file at once; the accumulator root is computed unless one is given. */
export function writeEra1(
  blocks: readonly Era1BlockInput[],
  { startNumber = 0n, accumulatorRoot = undefined as Hex | undefined, uncompressed = false } = {},
): Uint8Array {
  const writer = createEra1Writer({ startNumber, uncompressed })
  for (const block of blocks) writer.add(block)
  return writer.finish({ accumulatorRoot }).bytes
}
