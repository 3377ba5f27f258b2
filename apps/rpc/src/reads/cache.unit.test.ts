import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { createAnswerCache } from './cache.js'

const bytes = (text: string) => new TextEncoder().encode(text)

/** An answer's key as one string, for the model below. */
const answerKey = (network: string, hash: string, index: string) => `${network}/${hash}/${index}`

/** The cache's answers of mainnet uncle 0 by block hash, as the tests below use them. */
function byHash(maxEntries: number) {
  const cache = createAnswerCache({ maxEntries })
  return {
    set: (hash: string, json: Uint8Array) => cache.set('mainnet', hash, '0x0', json),
    get: (hash: string) => cache.get('mainnet', hash, '0x0'),
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
      cache.set(`k${i}`, bytes(String(i)))
      // Note: k0 is read after every insertion, so it is never among the oldest.
      expect(cache.get('k0')).toEqual(bytes('0'))
      expect(cache.size).toBeLessThanOrEqual(100)
    }
    for (let i = 950; i < 1000; i++) expect(cache.get(`k${i}`)).toEqual(bytes(String(i)))
    expect(cache.get('k500')).toBeUndefined()
    const one = byHash(1)
    one.set('a', bytes('1'))
    one.set('b', bytes('2'))
    expect(one.size).toBe(1)
    expect(one.get('b')).toEqual(bytes('2'))
  })

  test('behavior: answers of one block hash on other networks or at other indexes are kept apart', () => {
    const cache = createAnswerCache({ maxEntries: 10 })
    cache.set('mainnet', '0xab', '0x0', bytes('m0'))
    cache.set('mainnet', '0xab', '0x1', bytes('m1'))
    cache.set('sepolia', '0xab', '0x0', bytes('s0'))
    expect(cache.get('mainnet', '0xab', '0x0')).toEqual(bytes('m0'))
    expect(cache.get('mainnet', '0xab', '0x1')).toEqual(bytes('m1'))
    expect(cache.get('sepolia', '0xab', '0x0')).toEqual(bytes('s0'))
    expect(cache.get('sepolia', '0xab', '0x1')).toBeUndefined()
    expect(cache.get('mainnet', '0xAB', '0x0')).toBeUndefined()
    expect(cache.size).toBe(3)
  })

  // Note: 0xabcdef01 and 0xabcdef02 share their first seven hex digits, the cache's bucket.
  test('behavior: agrees with the two generations over flat keys on every get and size, over generated operations', () => {
    const key = fc.record({ network: fc.constantFrom('mainnet', 'sepolia'), hash: fc.constantFrom('0xa', '0xb', '0xc', '0xabcdef01', '0xabcdef02'), index: fc.constantFrom('0x0', '0x1') })
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
