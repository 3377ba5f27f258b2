import { describe, expect, test } from 'vitest'
import { planJobs, planRanges } from './planRanges.js'

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

describe('planJobs', () => {
  const epochs = [
    { epoch: 0, file: 'x-00000-aaaaaaaa.era1', from: 0n, to: 9n },
    { epoch: 1, file: 'x-00001-bbbbbbbb.era1', from: 10n, to: 19n },
    { epoch: 3, file: 'x-00003-cccccccc.era1', from: 30n, to: 39n },
  ]

  test('default: era1 files take the heights they hold, the node the rest (a missing epoch, above the last file)', () => {
    expect(planJobs({ from: 5n, to: 47n, indexed: [], rangeSize: 4n, epochs })).toEqual({
      epochs: [
        { ...epochs[0], from: 5n, to: 9n },
        { ...epochs[1] },
        { ...epochs[2] },
      ],
      ranges: [
        { from: 20n, to: 23n },
        { from: 24n, to: 27n },
        { from: 28n, to: 29n },
        { from: 40n, to: 43n },
        { from: 44n, to: 47n },
      ],
    })
  })

  test('behavior: an indexed epoch is not planned again; one with a gap left is', () => {
    const indexed = [{ from: 0n, to: 12n }, { from: 30n, to: 39n }]
    expect(planJobs({ from: 0n, to: 39n, indexed, rangeSize: 100n, epochs })).toEqual({
      epochs: [{ ...epochs[1] }],
      ranges: [{ from: 20n, to: 29n }],
    })
  })
})
