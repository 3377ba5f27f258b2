import { readFileSync } from 'node:fs'
import { describeWithFixtures, fixturePath } from '@uncle-rpc/testing'
import { expect, test } from 'vitest'
import { locateBlockIndex } from './blockIndex.js'
import { Era1FormatError } from './errors.js'

const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'

describeWithFixtures([era1], 'locateBlockIndex on mainnet-00000-5ec1ffb8.era1', () => {
  test('default: the count from the last 8 bytes places the record, its start number and its first offset', () => {
    const bytes = readFileSync(fixturePath(era1))
    const place = locateBlockIndex(bytes.length, bytes.readBigUInt64LE(bytes.length - 8))
    expect(place.count).toBe(8192)
    expect(place.recordStart).toBe(bytes.length - 8 - 16 - 8 * 8192)
    expect(bytes.readUInt16LE(place.recordStart)).toBe(0x3266) // the BlockIndex record type
    expect(bytes.readBigUInt64LE(place.startNumberAt)).toBe(0n)
    // The first offset points back at block 0's CompressedHeader record (type 0x03).
    expect(bytes.readUInt16LE(place.recordStart + Number(bytes.readBigInt64LE(place.offsetsAt)))).toBe(0x03)
  })
})

test('error: a count outside 1–8192, or an index larger than the file', () => {
  expect(() => locateBlockIndex(100_000, 0n)).toThrow(Era1FormatError)
  expect(() => locateBlockIndex(100_000, 8193n)).toThrow(/block index count is 8193, expected 1–8192/)
  expect(() => locateBlockIndex(100, 20n)).toThrow(/block index of 20 entries does not fit in the file/)
})
