import { describe, expect, test } from 'vitest'
import { answerKey, createAnswerCache } from './cache.js'

const bytes = (text: string) => new TextEncoder().encode(text)

describe('createAnswerCache', () => {
  test('default: stores and returns answers', () => {
    const cache = createAnswerCache({ maxEntries: 2 })
    cache.set('a', bytes('1'))
    expect(cache.get('a')).toEqual(bytes('1'))
    expect(cache.get('b')).toBeUndefined()
    expect(cache.size).toBe(1)
  })

  test('behavior: evicts the least recently used entry', () => {
    const cache = createAnswerCache({ maxEntries: 2 })
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
    const cache = createAnswerCache({ maxEntries: 100 })
    for (let i = 0; i < 1000; i++) {
      cache.set(`k${i}`, bytes(String(i)))
      // Note: k0 is read after every insertion, so it is never among the oldest.
      expect(cache.get('k0')).toEqual(bytes('0'))
      expect(cache.size).toBeLessThanOrEqual(100)
    }
    for (let i = 950; i < 1000; i++) expect(cache.get(`k${i}`)).toEqual(bytes(String(i)))
    expect(cache.get('k500')).toBeUndefined()
    const one = createAnswerCache({ maxEntries: 1 })
    one.set('a', bytes('1'))
    one.set('b', bytes('2'))
    expect(one.size).toBe(1)
    expect(one.get('b')).toEqual(bytes('2'))
  })

  test('args: maxEntries 0 turns the cache off', () => {
    const cache = createAnswerCache({ maxEntries: 0 })
    cache.set('a', bytes('1'))
    expect(cache.get('a')).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  test('default: answerKey', () => {
    expect(answerKey('mainnet', '0xab', '0x3')).toBe('mainnet/0xab/0x3')
  })
})
