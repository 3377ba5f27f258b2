import { uncompress } from 'snappyjs'
import { concatBytes } from '../bytes.js'
import { crc32c, maskCrc32c } from './crc32c.js'
import { SnappyFrameError } from './errors.js'

// The snappy framing format (github.com/google/snappy, framing_format.txt): a stream identifier
// chunk, then chunks of [type u8][length u24 LE][body]. Compressed (0x00) and uncompressed (0x01)
// chunk bodies start with the masked CRC-32C of the *uncompressed* data.

const streamIdentifier = [0x73, 0x4e, 0x61, 0x50, 0x70, 0x59] // "sNaPpY"
/** A chunk never holds more than 64 KiB of uncompressed data. */
const maxChunkData = 65536

const chunkType = { compressed: 0x00, uncompressed: 0x01, padding: 0xfe, streamIdentifier: 0xff } as const

function isStreamIdentifier(stream: Uint8Array, start: number, length: number): boolean {
  if (length !== streamIdentifier.length) return false
  for (let i = 0; i < length; i++) if (stream[start + i] !== streamIdentifier[i]) return false
  return true
}

function readCrc(stream: Uint8Array, at: number): number {
  return (stream[at]! | (stream[at + 1]! << 8) | (stream[at + 2]! << 16) | (stream[at + 3]! << 24)) >>> 0
}

/**
 * Decodes a snappy *framed* stream (as era1's Compressed* records hold) into its bytes,
 * checking every chunk's CRC-32C. Throws {@link SnappyFrameError} on any malformation.
 */
export function decodeSnappyFramed(stream: Uint8Array): Uint8Array {
  if (stream.length === 0) throw new SnappyFrameError({ offset: 0, reason: 'empty stream' })
  let first: Uint8Array | undefined
  let parts: Uint8Array[] | undefined
  let pos = 0
  while (pos < stream.length) {
    const chunkStart = pos
    if (pos + 4 > stream.length) throw new SnappyFrameError({ offset: chunkStart, reason: 'truncated chunk header' })
    const type = stream[pos]!
    const length = stream[pos + 1]! | (stream[pos + 2]! << 8) | (stream[pos + 3]! << 16)
    const body = pos + 4
    pos = body + length
    if (pos > stream.length)
      throw new SnappyFrameError({
        offset: chunkStart,
        reason: `chunk of ${length} bytes runs past the end of the stream (${stream.length} bytes)`,
      })
    if (chunkStart === 0 && type !== chunkType.streamIdentifier)
      throw new SnappyFrameError({ offset: 0, reason: 'missing stream identifier' })

    if (type === chunkType.streamIdentifier) {
      if (!isStreamIdentifier(stream, body, length)) throw new SnappyFrameError({ offset: chunkStart, reason: 'bad stream identifier' })
    } else if (type === chunkType.compressed || type === chunkType.uncompressed) {
      const data = chunkData(stream, chunkStart, type, body, pos)
      // Note: most era1 payloads are one chunk, returned as is; only longer ones are joined.
      if (first === undefined) first = data
      else (parts ??= [first]).push(data)
    } else if (type < 0x80) {
      throw new SnappyFrameError({ offset: chunkStart, reason: `reserved unskippable chunk type 0x${type.toString(16).padStart(2, '0')}` })
    }
    // Note: padding (0xfe) and reserved skippable chunks (0x80–0xfd) carry nothing; skip them.
  }
  if (parts === undefined) return first ?? new Uint8Array(0)
  return concatBytes(parts)
}

// One compressed or uncompressed chunk's data, checksum-checked.
function chunkData(stream: Uint8Array, chunkStart: number, type: number, body: number, end: number): Uint8Array {
  if (end - body < 4)
    throw new SnappyFrameError({ offset: chunkStart, reason: `chunk of ${end - body} bytes has no room for its checksum` })
  let data = stream.subarray(body + 4, end)
  if (type === chunkType.compressed) {
    try {
      data = uncompress(data, maxChunkData)
    } catch (error) {
      throw new SnappyFrameError({
        offset: chunkStart,
        reason: `snappy block does not decompress (${(error as Error).message})`,
        cause: error,
      })
    }
  } else if (data.length > maxChunkData)
    throw new SnappyFrameError({ offset: chunkStart, reason: `uncompressed chunk holds ${data.length} bytes (max ${maxChunkData})` })
  const expected = readCrc(stream, body)
  const computed = maskCrc32c(crc32c(data))
  if (computed !== expected)
    throw new SnappyFrameError({
      offset: chunkStart,
      reason: `checksum mismatch: chunk says 0x${hex32(expected)}, data gives 0x${hex32(computed)}`,
    })
  return data
}

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0')
}
