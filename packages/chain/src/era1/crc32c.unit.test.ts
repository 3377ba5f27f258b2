import { expect, test } from 'vitest'
import { crc32c, maskCrc32c } from './crc32c.js'

const ascii = (s: string) => new TextEncoder().encode(s)

test('default: the standard CRC-32C check values', () => {
  expect(crc32c(ascii('123456789'))).toBe(0xe3069283)
  expect(crc32c(new Uint8Array(0))).toBe(0)
  expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa) // RFC 3720 B.4: 32 bytes of zeros
  expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43) // RFC 3720 B.4: 32 bytes of 0xff
})

test('default: maskCrc32c rotates right by 15 and adds 0xa282ead8', () => {
  expect(maskCrc32c(0)).toBe(0xa282ead8)
  expect(maskCrc32c(0xe3069283)).toBe((((0xe3069283 >>> 15) | (0xe3069283 << 17)) + 0xa282ead8) >>> 0)
  expect(maskCrc32c(0xffffffff)).toBe((0xffffffff + 0xa282ead8) >>> 0)
})

test('behavior: slicing-by-8 equals the byte-at-a-time definition at every length and alignment', () => {
  const bitwise = (bytes: Uint8Array) => {
    let crc = 0xffffffff
    for (const byte of bytes) {
      crc ^= byte
      for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1
    }
    return (crc ^ 0xffffffff) >>> 0
  }
  const data = Uint8Array.from({ length: 300 }, (_, i) => (i * 131 + 7) & 0xff)
  for (let start = 0; start < 9; start++)
    for (let length = 0; length < 40; length++) expect(crc32c(data.subarray(start, start + length))).toBe(bitwise(data.subarray(start, start + length)))
  expect(crc32c(data)).toBe(bitwise(data))
})
