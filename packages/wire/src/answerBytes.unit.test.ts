import { describe, expect, test } from 'vitest'
import { answerBytes } from './answerBytes.js'

// The answer slabs: answers cut one after another never overlap, and a large one gets memory of its own.

describe('answerBytes', () => {
  test('behavior: answers cut one after another never share a byte, whatever their sizes', () => {
    const taken = Array.from({ length: 400 }, (_, i) => answerBytes(1 + ((i * 7919) % 3000)))
    taken.forEach((bytes, i) => bytes.fill(i % 251))
    taken.forEach((bytes, i) => {
      expect(bytes.length).toBe(1 + ((i * 7919) % 3000))
      expect(bytes.every((b) => b === i % 251)).toBe(true)
    })
  })

  test('args: a large answer gets memory of its own, not a slab', () => {
    const large = answerBytes(20_000)
    expect(large.length).toBe(20_000)
    expect(large.buffer.byteLength).toBe(20_000)
  })
})
