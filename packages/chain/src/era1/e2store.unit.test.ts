import { expect, test } from 'vitest'
import { concat, e2Record } from './_test/writeEra1.js'
import { e2Type, expectE2Record, readE2Record } from './e2store.js'

const file = concat([e2Record(e2Type.version, new Uint8Array(0)), e2Record(e2Type.totalDifficulty, new Uint8Array(32).fill(1))])

test('default: reads consecutive records', () => {
  expect(readE2Record(file, 0)).toEqual({ type: 0x3265, start: 0, dataStart: 8, end: 8 })
  expect(readE2Record(file, 8)).toEqual({ type: 0x06, start: 8, dataStart: 16, end: 48 })
  expect(expectE2Record(file, 8, { type: e2Type.totalDifficulty, name: 'TotalDifficulty', length: 32 }).end).toBe(48)
})

test('error: cut off, reserved bytes set, wrong type or length', () => {
  expect(() => readE2Record(file, 44)).toThrowErrorMatchingInlineSnapshot(
    `[Era1FormatError: Invalid era1 file at byte 44: no record header at byte 44 (file is 48 bytes)]`,
  )
  expect(() => readE2Record(file.subarray(0, 47), 8, 3n)).toThrowErrorMatchingInlineSnapshot(
    `[Era1FormatError: Invalid era1 file in block 3 (byte 8): record of type 0x6 claims 32 bytes but the file ends 31 bytes later]`,
  )
  const reserved = file.slice()
  reserved[6] = 1
  expect(() => readE2Record(reserved, 0)).toThrowErrorMatchingInlineSnapshot(
    `[Era1FormatError: Invalid era1 file at byte 0: record reserved bytes are 0x1, not 0]`,
  )
  expect(() => expectE2Record(file, 8, { type: e2Type.accumulator, name: 'Accumulator' })).toThrowErrorMatchingInlineSnapshot(
    `[Era1FormatError: Invalid era1 file at byte 8: expected Accumulator record (type 0x7), found type 0x6]`,
  )
  expect(() =>
    expectE2Record(file, 8, { type: e2Type.totalDifficulty, name: 'TotalDifficulty', length: 31, blockNumber: 7n }),
  ).toThrowErrorMatchingInlineSnapshot(
    `[Era1FormatError: Invalid era1 file in block 7 (byte 8): TotalDifficulty record holds 32 bytes, expected 31]`,
  )
})
