import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { HashPrefixSet } from './hashFilter.js'

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`

describe('HashPrefixSet', () => {
  test('default: never "no" for a hash it was given, across growth; other hashes are "no"', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 3000 }), (hashes) => {
        const set = new HashPrefixSet(16)
        for (const h of hashes) set.addHex(hex(h))
        for (const h of hashes) expect(set.hasHex(hex(h))).toBe(true)
        const given = new Set(hashes.map((h) => hex(h).slice(0, 18)))
        for (let i = 0; i < 100; i++) {
          const other = hex(randomBytes(32))
          if (!given.has(other.slice(0, 18))) expect(set.hasHex(other)).toBe(false)
        }
        expect(set.size).toBe(given.size)
      }),
      { numRuns: 50 },
    )
  })

  test('behavior: the all-zero prefix (the empty-slot marker) is kept; prefixes from Postgres bytes equal hex adds, in either case', () => {
    const set = new HashPrefixSet()
    const zero = `0x${'00'.repeat(8)}${'ab'.repeat(24)}`
    expect(set.hasHex(zero)).toBe(false)
    set.addHex(zero)
    expect(set.hasHex(zero)).toBe(true)
    const hashes = Array.from({ length: 500 }, () => randomBytes(32))
    const fromBytes = new HashPrefixSet()
    fromBytes.addPrefixes(Buffer.concat(hashes.map((h) => h.subarray(0, 8))))
    for (const h of hashes) expect(fromBytes.hasHex(hex(h))).toBe(true)
    // Upper-case digits read as the same bytes.
    for (const h of hashes) expect(fromBytes.hasHex(`0x${hex(h).slice(2).toUpperCase()}`)).toBe(true)
    expect(fromBytes.size).toBe(500)
  })

  test('behavior: the table stays at most 3/4 full: 1.4 million hashes in 2^21 slots of 8 bytes (16 MiB)', () => {
    const set = new HashPrefixSet(1_400_000)
    expect(set.bytes).toBe(2 ** 21 * 8)
  })
})
