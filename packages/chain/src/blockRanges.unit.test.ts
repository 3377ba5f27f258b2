import { describe, expect, test } from 'vitest'
import { coversRange, gapsOf, holesBelowTop, indexedHeight, mergeRanges } from './blockRanges.js'

const r = (from: number, to: number) => ({ from: BigInt(from), to: BigInt(to) })

describe('block ranges', () => {
  test('default: merge sorts and joins overlapping and touching ranges', () => {
    expect(mergeRanges([r(10, 19), r(0, 4), r(5, 7), r(15, 30), r(40, 41)])).toEqual([r(0, 7), r(10, 30), r(40, 41)])
    expect(mergeRanges([])).toEqual([])
  })

  test('default: gaps of an interval, clipped to it', () => {
    const indexed = [r(0, 7), r(10, 30), r(40, 41)]
    expect(gapsOf({ ...r(0, 50), indexed })).toEqual([r(8, 9), r(31, 39), r(42, 50)])
    expect(gapsOf({ ...r(12, 35), indexed })).toEqual([r(31, 35)])
    expect(gapsOf({ ...r(11, 29), indexed })).toEqual([])
    expect(gapsOf({ ...r(5, 3), indexed: [] })).toEqual([])
    expect(coversRange(indexed, r(10, 30))).toBe(true)
    expect(coversRange(indexed, r(6, 10))).toBe(false)
  })

  test('behavior: indexed height is contiguous from `from`; holes are those below the top', () => {
    const indexed = [r(0, 7), r(10, 30), r(40, 41)]
    expect(indexedHeight(0n, indexed)).toBe(7n)
    expect(indexedHeight(10n, indexed)).toBe(30n)
    expect(indexedHeight(8n, indexed)).toBe(7n)
    expect(indexedHeight(5n, [])).toBe(4n)
    expect(indexedHeight(5n, [r(0, 9), r(10, 30)])).toBe(30n)
    expect(indexedHeight(0n, [r(1, 9)])).toBe(-1n)
    expect(holesBelowTop(0n, indexed)).toEqual([r(8, 9), r(31, 39)])
    expect(holesBelowTop(12n, indexed)).toEqual([r(31, 39)])
    expect(holesBelowTop(0n, [])).toEqual([])
  })
})
