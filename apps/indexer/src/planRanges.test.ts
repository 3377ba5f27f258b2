import { describe, expect, test } from 'vitest'
import { planRanges } from './planRanges.js'

describe('planRanges', () => {
  test('default: splits an empty index into aligned ranges', () => {
    expect(planRanges({ from: 0n, to: 25n, indexed: [], rangeSize: 10n })).toEqual([
      { from: 0n, to: 9n },
      { from: 10n, to: 19n },
      { from: 20n, to: 25n },
    ])
  })

  test('behavior: only gaps are planned, boundaries stay aligned', () => {
    const indexed = [
      { from: 0n, to: 4n },
      { from: 12n, to: 12n },
      { from: 20n, to: 40n },
    ]
    expect(planRanges({ from: 0n, to: 45n, indexed, rangeSize: 10n })).toEqual([
      { from: 5n, to: 9n },
      { from: 10n, to: 11n },
      { from: 13n, to: 19n },
      { from: 41n, to: 45n },
    ])
  })

  test('behavior: a fully indexed interval plans nothing; a start inside a range is respected', () => {
    expect(planRanges({ from: 3n, to: 8n, indexed: [{ from: 0n, to: 10n }], rangeSize: 4n })).toEqual([])
    expect(planRanges({ from: 7n, to: 9n, indexed: [], rangeSize: 4n })).toEqual([
      { from: 7n, to: 7n },
      { from: 8n, to: 9n },
    ])
  })
})
