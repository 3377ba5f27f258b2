import { describe, expect, test } from 'vitest'
import { lagFromSamples, parseLsn } from './readReplicas.js'

describe('parseLsn', () => {
  test('default: high and low halves in hex', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n)
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n)
  })
})

describe('lagFromSamples', () => {
  const samples = [
    { at: 1000, lsn: 100n },
    { at: 1250, lsn: 100n },
    { at: 1500, lsn: 180n },
    { at: 1750, lsn: 260n },
  ]
  test('default: a replica that replayed the latest position has no lag, however old it is', () => {
    expect(lagFromSamples(samples, 260n, 60_000)).toBe(0)
    expect(lagFromSamples([{ at: 0, lsn: 5n }], 5n, 1e9)).toBe(0)
  })
  test('behavior: the lag is the age of the first position not replayed', () => {
    expect(lagFromSamples(samples, 100n, 2000)).toBe(500)
    expect(lagFromSamples(samples, 200n, 2000)).toBe(250)
  })
  test('behavior: further behind than every sample: the age of the oldest', () => {
    expect(lagFromSamples(samples, 50n, 2000)).toBe(1000)
  })
  test('behavior: no samples yet: no lag can be told', () => {
    expect(lagFromSamples([], 1n, 5)).toBe(0)
  })
})
