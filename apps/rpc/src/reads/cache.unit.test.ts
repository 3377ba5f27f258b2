import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { createAnswerCache } from './cache.js'

const bytes = (text: string) => new TextEncoder().encode(text)

/**
 * A block hash ending in `tail` (hex digits); every such hash shares its first 56 digits, so all
 * of them start their probe at the same slot of the cache's tables.
 */
const hash = (tail: string) => `0x${'5a'.repeat(28)}${tail.padStart(8, '0')}`

/** An answer's key as one string, for the model below. */
const answerKey = (network: string, hash: string, index: string) => `${network}/${hash}/${index}`

/** The cache's answers of mainnet uncle 0 by block hash, as the tests below use them. */
function byHash(maxEntries: number) {
  const cache = createAnswerCache({ maxEntries })
  return {
    set: (tail: string, json: Uint8Array) => cache.set('mainnet', hash(tail), '0x0', json),
    get: (tail: string) => cache.get('mainnet', hash(tail), '0x0'),
    get size() {
      return cache.size
    },
  }
}

/** The two-generation scheme over one flat map per generation, keyed by answerKey: the model the cache must agree with. */
function flatModel(maxEntries: number) {
  const half = Math.max(1, Math.floor(maxEntries / 2))
  let young = new Map<string, Uint8Array>()
  let old = new Map<string, Uint8Array>()
  const put = (key: string, json: Uint8Array) => {
    if (young.size >= half) {
      old = maxEntries === 1 ? new Map() : young
      young = new Map()
    }
    young.set(key, json)
  }
  return {
    get(key: string) {
      const hit = young.get(key)
      if (hit !== undefined) return hit
      const aged = old.get(key)
      if (aged !== undefined) {
        old.delete(key)
        put(key, aged)
      }
      return aged
    },
    set(key: string, json: Uint8Array) {
      if (young.has(key)) young.set(key, json)
      else {
        old.delete(key)
        put(key, json)
      }
    },
    get size() {
      return young.size + old.size
    },
  }
}

describe('createAnswerCache', () => {
  test('default: stores and returns answers', () => {
    const cache = byHash(2)
    cache.set('a', bytes('1'))
    expect(cache.get('a')).toEqual(bytes('1'))
    expect(cache.get('b')).toBeUndefined()
    expect(cache.size).toBe(1)
  })

  test('behavior: evicts the least recently used entry', () => {
    const cache = byHash(2)
    cache.set('a', bytes('1'))
    cache.set('b', bytes('2'))
    expect(cache.get('a')).toEqual(bytes('1'))
    cache.set('c', bytes('3'))
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('a')).toEqual(bytes('1'))
    expect(cache.get('c')).toEqual(bytes('3'))
    expect(cache.size).toBe(2)
  })

  test('behavior: holds at most maxEntries, keeps what was read or written within the last maxEntries / 2 insertions', () => {
    const cache = byHash(100)
    for (let i = 0; i < 1000; i++) {
      cache.set(i.toString(16), bytes(String(i)))
      // Note: 0 is read after every insertion, so it is never among the oldest.
      expect(cache.get('0')).toEqual(bytes('0'))
      expect(cache.size).toBeLessThanOrEqual(100)
    }
    for (let i = 950; i < 1000; i++) expect(cache.get(i.toString(16))).toEqual(bytes(String(i)))
    expect(cache.get((500).toString(16))).toBeUndefined()
    const one = byHash(1)
    one.set('a', bytes('1'))
    one.set('b', bytes('2'))
    expect(one.size).toBe(1)
    expect(one.get('b')).toEqual(bytes('2'))
  })

  test('behavior: answers of one block hash on other networks or at other indexes are kept apart', () => {
    const cache = createAnswerCache({ maxEntries: 10 })
    const ab = hash('ab')
    cache.set('mainnet', ab, '0x0', bytes('m0'))
    cache.set('mainnet', ab, '0x1', bytes('m1'))
    cache.set('mainnet', ab, 'count', bytes('mc'))
    cache.set('sepolia', ab, '0x0', bytes('s0'))
    expect(cache.get('mainnet', ab, '0x0')).toEqual(bytes('m0'))
    expect(cache.get('mainnet', ab, '0x1')).toEqual(bytes('m1'))
    expect(cache.get('mainnet', ab, 'count')).toEqual(bytes('mc'))
    expect(cache.get('sepolia', ab, '0x0')).toEqual(bytes('s0'))
    expect(cache.get('sepolia', ab, '0x1')).toBeUndefined()
    expect(cache.get('sepolia', ab, 'count')).toBeUndefined()
    expect(cache.get('mainnet', ab.toUpperCase().replace('0X', '0x'), '0x0')).toBeUndefined()
    expect(cache.size).toBe(4)
  })

  test('behavior: block numbers are keys apart from hashes, whatever their words', () => {
    const cache = createAnswerCache({ maxEntries: 10 })
    const big = '0xfedcba9876543210'
    cache.set('mainnet', '0x1', '0x0', bytes('n1'))
    cache.set('mainnet', big, 'count', bytes('nbig'))
    cache.set('mainnet', `0x${'0'.repeat(63)}1`, '0x0', bytes('h1'))
    expect(cache.get('mainnet', '0x1', '0x0')).toEqual(bytes('n1'))
    expect(cache.get('mainnet', big, 'count')).toEqual(bytes('nbig'))
    expect(cache.get('mainnet', `0x${'0'.repeat(63)}1`, '0x0')).toEqual(bytes('h1'))
    // The same words in a hash's spelling (a number's low word first): no answer of a number.
    expect(cache.get('mainnet', `0x00000001${'0'.repeat(56)}`, '0x0')).toBeUndefined()
    expect(cache.get('mainnet', '0xfedcba9876543211', 'count')).toBeUndefined()
    expect(cache.get('mainnet', '0x76543210', 'count')).toBeUndefined()
  })

  test('args: text that is not a key is never kept, and never finds an answer', () => {
    const cache = createAnswerCache({ maxEntries: 10 })
    const good = hash('1')
    cache.set('mainnet', good, '0x0', bytes('a'))
    // A character past ASCII whose low 7 bits spell a digit ('1' + 128), uppercase, 0X, another length, a non-canonical or too large index.
    const notKeys: [string, string][] = [
      [good.slice(0, -1) + String.fromCharCode(49 + 128), '0x0'],
      [good.slice(0, -1) + String.fromCharCode(49 + 256), '0x0'],
      [good.replace('5a', '5A'), '0x0'],
      [good.replace('0x', '0X'), '0x0'],
      [good.slice(0, -1), '0x0'],
      [`${good}0`, '0x0'],
      [good, '0x00'],
      [good, '0x'],
      [good, '0'],
      [good, '0X0'],
      [good, '0x10000000'],
      [good, 'Count'],
      ['0x01', '0x0'],
      ['0x', '0x0'],
      ['0x10000000000000000', '0x0'],
      ['0xg', '0x0'],
    ]
    for (const [text, index] of notKeys) {
      expect(cache.get('mainnet', text, index)).toBeUndefined()
      cache.set('mainnet', text, index, bytes('b'))
      expect(cache.get('mainnet', text, index)).toBeUndefined()
    }
    expect(cache.size).toBe(1)
    expect(cache.get('mainnet', good, '0x0')).toEqual(bytes('a'))
    expect(cache.get('mainnet', good, '0xfffffff')).toBeUndefined()
  })

  // Note: the hashes below share their first 56 digits (their probes start at one slot); one is a block number's spelling.
  test('behavior: agrees with the two generations over flat keys on every get and size, over generated operations', () => {
    const key = fc.record({ network: fc.constantFrom('mainnet', 'sepolia'), hash: fc.constantFrom(hash('a'), hash('b'), hash('c'), hash('abcdef01'), hash('abcdef02'), '0xabcdef01'), index: fc.constantFrom('0x0', '0x1', 'count') })
    const op = fc.oneof(fc.record({ set: key, value: fc.nat(99) }), fc.record({ get: key }))
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(op, { maxLength: 200 }), (maxEntries, ops) => {
        const cache = createAnswerCache({ maxEntries })
        const model = flatModel(maxEntries)
        for (const o of ops) {
          if ('set' in o) {
            const { network, hash, index } = o.set
            cache.set(network, hash, index, bytes(String(o.value)))
            model.set(answerKey(network, hash, index), bytes(String(o.value)))
          } else {
            const { network, hash, index } = o.get
            expect(cache.get(network, hash, index)).toEqual(model.get(answerKey(network, hash, index)))
          }
          expect(cache.size).toBe(model.size)
        }
      }),
      { numRuns: 500 },
    )
  })

  test('args: maxEntries 0 turns the cache off', () => {
    const cache = byHash(0)
    cache.set('a', bytes('1'))
    expect(cache.get('a')).toBeUndefined()
    expect(cache.size).toBe(0)
  })
})
