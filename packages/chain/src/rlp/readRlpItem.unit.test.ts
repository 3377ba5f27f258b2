import { expect, test } from 'vitest'
import { bytesToHexString } from '../bytes.js'
import { writeRlpPrefix } from './readRlpItem.js'

// The writers the synthetic chain of the sample node builds its headers and bodies with.

test('default: short and long list prefixes', () => {
  const out = new Uint8Array(4)
  expect(writeRlpPrefix(out, 0, 55, true)).toBe(1)
  expect(out[0]).toBe(0xf7)
  expect(writeRlpPrefix(out, 0, 1100, true)).toBe(3)
  expect(bytesToHexString(out.subarray(0, 3))).toBe('0xf9044c')
})
