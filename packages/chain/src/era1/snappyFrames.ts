import { uncompress } from 'snappyjs'
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
  return length === streamIdentifier.length && streamIdentifier.every((b, i) => stream[start + i] === b)
}

function readCrc(stream: Uint8Array, at: number): number {
  return (stream[at]! | (stream[at + 1]! << 8) | (stream[at + 2]! << 16) | (stream[at + 3]! << 24)) >>> 0
}

/**
 * Decodes a snappy *framed* stream (as era1's Compressed* records hold) into its bytes,
 * checking every chunk's CRC-32C. Throws {@link SnappyFrameError} on any malformation.
 */
export function decodeSnappyFramed(stream: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = []
  let total = 0
  let pos = 0
  while (pos < stream.length) {
    const chunkStart = pos
    const fail = (reason: string, cause?: unknown): never => {
      throw new SnappyFrameError({ offset: chunkStart, reason, cause })
    }
    if (pos + 4 > stream.length) fail('truncated chunk header')
    const type = stream[pos]!
    const length = stream[pos + 1]! | (stream[pos + 2]! << 8) | (stream[pos + 3]! << 16)
    const body = pos + 4
    pos = body + length
    if (pos > stream.length) fail(`chunk of ${length} bytes runs past the end of the stream (${stream.length} bytes)`)
    if (chunkStart === 0 && type !== chunkType.streamIdentifier) fail('missing stream identifier')

    if (type === chunkType.streamIdentifier) {
      if (!isStreamIdentifier(stream, body, length)) fail('bad stream identifier')
    } else if (type === chunkType.compressed || type === chunkType.uncompressed) {
      if (length < 4) fail(`chunk of ${length} bytes has no room for its checksum`)
      let data = stream.subarray(body + 4, pos)
      if (type === chunkType.compressed) {
        try {
          data = uncompress(data, maxChunkData)
        } catch (error) {
          fail(`snappy block does not decompress (${(error as Error).message})`, error)
        }
      } else if (data.length > maxChunkData) fail(`uncompressed chunk holds ${data.length} bytes (max ${maxChunkData})`)
      const expected = readCrc(stream, body)
      const computed = maskCrc32c(crc32c(data))
      if (computed !== expected) fail(`checksum mismatch: chunk says 0x${hex32(expected)}, data gives 0x${hex32(computed)}`)
      parts.push(data)
      total += data.length
    } else if (type < 0x80) {
      fail(`reserved unskippable chunk type 0x${type.toString(16).padStart(2, '0')}`)
    }
    // Note: padding (0xfe) and reserved skippable chunks (0x80–0xfd) carry nothing; skip them.
  }
  if (stream.length === 0) throw new SnappyFrameError({ offset: 0, reason: 'empty stream' })
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(total)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0')
}
