import { compress } from 'snappyjs'
import { hexToBytes, toRlp } from 'viem'
import { headerToRlpFields } from '../../codecs.js'
import { headerRlp } from '../../hashHeader.js'
import type { Hex } from '../../header.js'
import { epochAccumulatorRoot } from '../accumulator.js'
import { crc32c, maskCrc32c } from '../crc32c.js'
import type { Era1File } from '../openEra1.js'

// Test-side era1 writer (not product code): builds small era1 files to exercise the reader's
// error paths without decoding a whole real epoch.

/** Encodes bytes as a snappy framed stream: stream identifier, then chunks of `chunkSize` bytes. */
export function encodeSnappyFramed(data: Uint8Array, { chunkSize = 65536, uncompressed = false } = {}): Uint8Array {
  const chunks: Uint8Array[] = [Uint8Array.of(0xff, 6, 0, 0, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59)]
  for (let at = 0; at < data.length || at === 0; at += chunkSize) {
    const part = data.subarray(at, at + chunkSize)
    const body = uncompressed ? part : compress(part)
    const chunk = new Uint8Array(8 + body.length)
    const length = 4 + body.length
    chunk.set([uncompressed ? 0x01 : 0x00, length & 0xff, (length >> 8) & 0xff, length >> 16])
    new DataView(chunk.buffer).setUint32(4, maskCrc32c(crc32c(part)), true)
    chunk.set(body, 8)
    chunks.push(chunk)
    if (data.length === 0) break
  }
  return concat(chunks)
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

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

function uint256Le(value: bigint): Uint8Array {
  const out = new Uint8Array(32)
  for (let i = 0, v = value; i < 32; i++, v >>= 8n) out[i] = Number(v & 0xffn)
  return out
}

export type Era1BlockInput = {
  headerRlp: Uint8Array
  bodyRlp: Uint8Array
  receiptsRlp: Uint8Array
  totalDifficulty: bigint
  /** Its hash, for the accumulator. */
  hash: Hex
}

/** Writes an era1 file; the accumulator root is computed unless one is given. */
export function writeEra1(
  blocks: readonly Era1BlockInput[],
  { startNumber = 0n, accumulatorRoot = undefined as Hex | undefined } = {},
): Uint8Array {
  const parts: Uint8Array[] = [e2Record(0x3265, new Uint8Array(0))]
  const offsets: number[] = []
  let position = 8
  for (const block of blocks) {
    offsets.push(position)
    for (const record of [
      e2Record(0x03, encodeSnappyFramed(block.headerRlp)),
      e2Record(0x04, encodeSnappyFramed(block.bodyRlp)),
      e2Record(0x05, encodeSnappyFramed(block.receiptsRlp)),
      e2Record(0x06, uint256Le(block.totalDifficulty)),
    ]) {
      parts.push(record)
      position += record.length
    }
  }
  const root =
    accumulatorRoot ?? epochAccumulatorRoot(blocks.map((b) => ({ blockHash: b.hash, totalDifficulty: b.totalDifficulty })))
  parts.push(e2Record(0x07, hexToBytes(root)))
  position += 40
  const index = new Uint8Array(16 + 8 * blocks.length)
  const view = new DataView(index.buffer)
  view.setBigUint64(0, startNumber, true)
  offsets.forEach((offset, i) => {
    view.setBigInt64(8 + 8 * i, BigInt(offset - position), true)
  })
  view.setBigUint64(8 + 8 * blocks.length, BigInt(blocks.length), true)
  parts.push(e2Record(0x3266, index))
  return concat(parts)
}

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
