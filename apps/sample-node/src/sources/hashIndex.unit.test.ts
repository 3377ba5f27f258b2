import { describe, expect, test } from 'vitest'
import { buildHashPrefixIndex, hashPrefix } from './hashIndex.js'

describe('hashPrefix', () => {
  test('default: the first 4 bytes, from bytes or hex', () => {
    expect(hashPrefix(`0xdeadbeef${'0'.repeat(56)}`)).toBe(0xdeadbeef)
    expect(hashPrefix(Uint8Array.of(0xff, 0, 0, 1, 9))).toBe(0xff000001)
  })
})

describe('buildHashPrefixIndex', () => {
  test('default: finds every number by its prefix, collisions included', () => {
    const prefixes = Uint32Array.from({ length: 50_000 }, (_, i) => (Math.imul(i, 2654435761) >>> 0) % 40_000)
    const index = buildHashPrefixIndex(prefixes, prefixes.length)
    for (let n = 0; n < prefixes.length; n += 97) expect(index.candidates(prefixes[n] as number)).toContain(n)
    const collide = index.candidates(prefixes[5] as number)
    expect(collide.every((n) => prefixes[n] === prefixes[5])).toBe(true)
    expect(index.candidates(0xffffffff)).toEqual([])
  })

  test('behavior: entries changed after the build no longer match', () => {
    const prefixes = Uint32Array.of(1, 2, 3)
    const index = buildHashPrefixIndex(prefixes, 3)
    prefixes[1] = 7
    expect(index.candidates(2)).toEqual([])
    expect(index.candidates(3)).toEqual([2])
  })
})
