import { expect, test } from 'vitest'
import { concat, encodeSnappyFramed } from './_test/writeEra1.js'
import { SnappyFrameError } from './errors.js'
import { decodeSnappyFramed } from './snappyFrames.js'

const sample = Uint8Array.from({ length: 70_000 }, (_, i) => ((i * 7919) % 251) ^ (i >> 10))

function thrown(fn: () => unknown): SnappyFrameError {
  try {
    fn()
  } catch (error) {
    if (error instanceof SnappyFrameError) return error
    throw error
  }
  throw new Error('expected a SnappyFrameError')
}

test('default: decodes compressed chunks, split at 64 KiB', () => {
  const stream = encodeSnappyFramed(sample)
  expect(stream[0]).toBe(0xff)
  expect(decodeSnappyFramed(stream)).toEqual(sample)
})

test('args: uncompressed chunks, small chunks, an empty payload', () => {
  expect(decodeSnappyFramed(encodeSnappyFramed(sample, { uncompressed: true }))).toEqual(sample)
  expect(decodeSnappyFramed(encodeSnappyFramed(sample.subarray(0, 10_000), { chunkSize: 1000 }))).toEqual(
    sample.subarray(0, 10_000),
  )
  expect(decodeSnappyFramed(encodeSnappyFramed(new Uint8Array(0)))).toEqual(new Uint8Array(0))
})

test('behavior: padding, skippable chunks and a repeated stream identifier are skipped', () => {
  const [identifier, ...rest] = [encodeSnappyFramed(new Uint8Array(0)).subarray(0, 10)]
  const body = encodeSnappyFramed(sample.subarray(0, 5000)).subarray(10)
  const stream = concat([
    identifier!,
    ...rest,
    Uint8Array.of(0xfe, 2, 0, 0, 9, 9),
    Uint8Array.of(0x80, 0, 0, 0),
    identifier!,
    body,
  ])
  expect(decodeSnappyFramed(stream)).toEqual(sample.subarray(0, 5000))
})

test('error: malformed streams', () => {
  const good = encodeSnappyFramed(sample.subarray(0, 1000))
  const flip = (at: number) => {
    const copy = good.slice()
    copy[at]! ^= 0x01
    return copy
  }
  expect(thrown(() => decodeSnappyFramed(new Uint8Array(0))).message).toMatchInlineSnapshot(
    `"Invalid snappy framed stream at byte 0: empty stream"`,
  )
  expect(thrown(() => decodeSnappyFramed(good.subarray(10))).message).toMatchInlineSnapshot(
    `"Invalid snappy framed stream at byte 0: missing stream identifier"`,
  )
  expect(thrown(() => decodeSnappyFramed(flip(5))).message).toMatchInlineSnapshot(
    `"Invalid snappy framed stream at byte 0: bad stream identifier"`,
  )
  expect(thrown(() => decodeSnappyFramed(good.subarray(0, good.length - 1))).message).toMatchInlineSnapshot(
    `"Invalid snappy framed stream at byte 10: chunk of 297 bytes runs past the end of the stream (310 bytes)"`,
  )
  expect(thrown(() => decodeSnappyFramed(good.subarray(0, 12))).message).toMatchInlineSnapshot(
    `"Invalid snappy framed stream at byte 10: truncated chunk header"`,
  )
  expect(thrown(() => decodeSnappyFramed(flip(14))).message).toMatchInlineSnapshot(
    `"Invalid snappy framed stream at byte 10: checksum mismatch: chunk says 0x67a6f26c, data gives 0x67a6f26d"`,
  ) // stored CRC
  expect(thrown(() => decodeSnappyFramed(flip(good.length - 1))).message).toMatch(/^Invalid snappy framed stream at byte 10: /)
  expect(thrown(() => decodeSnappyFramed(concat([good, Uint8Array.of(0x02, 0, 0, 0)]))).message).toMatchInlineSnapshot(
    `"Invalid snappy framed stream at byte 311: reserved unskippable chunk type 0x02"`,
  )
  expect(thrown(() => decodeSnappyFramed(concat([good, Uint8Array.of(0x00, 2, 0, 0, 1, 2)]))).message).toMatchInlineSnapshot(
    `"Invalid snappy framed stream at byte 311: chunk of 2 bytes has no room for its checksum"`,
  )
})

test('error: a snappy block that does not decompress keeps the cause', () => {
  const identifier = encodeSnappyFramed(new Uint8Array(0)).subarray(0, 10)
  const chunk = (block: Uint8Array) => concat([identifier, Uint8Array.of(0, block.length + 4, 0, 0, 0, 0, 0, 0), block])
  // length 5, then a copy with offset 0 (invalid)
  const invalid = thrown(() => decodeSnappyFramed(chunk(Uint8Array.of(0x05, 0x01, 0x00))))
  expect(invalid.message).toMatchInlineSnapshot(
    `"Invalid snappy framed stream at byte 10: snappy block does not decompress (Invalid Snappy bitstream)"`,
  )
  expect(invalid.cause).toBeInstanceOf(Error)
  // uncompressed length 131072: over the 64 KiB a chunk may hold
  expect(thrown(() => decodeSnappyFramed(chunk(Uint8Array.of(0x80, 0x80, 0x08, 0x00)))).message).toMatchInlineSnapshot(
    `"Invalid snappy framed stream at byte 10: snappy block does not decompress (The uncompressed length of 131072 is too big, expect at most 65536)"`,
  )
})

test('error: an uncompressed chunk over 64 KiB', () => {
  const big = encodeSnappyFramed(new Uint8Array(70_000), { uncompressed: true, chunkSize: 70_000 })
  expect(thrown(() => decodeSnappyFramed(big)).message).toMatchInlineSnapshot(
    `"Invalid snappy framed stream at byte 10: uncompressed chunk holds 70000 bytes (max 65536)"`,
  )
})
