import { expect, test } from 'vitest'
import { jobBackoffMs } from './jobBackoff.js'

test('default: 1 s doubling after each failed attempt, never more than 30 s', () => {
  expect([1, 2, 3, 4, 5, 6, 7, 100, 1e9].map(jobBackoffMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000])
})
