import { type UsagePoint, zeroUsageCounts } from '@uncle-rpc/db/accounts'
import { expect, test } from 'vitest'
import { fillDays, fillHours } from './usageSeries.js'

const now = Date.parse('2026-03-02T10:20:30Z')
const point = (at: string, requests: number): UsagePoint => ({ at, ...zeroUsageCounts(), requests })

test('default: every one of the last days, oldest first, today last; days without calls are zeros', () => {
  const days = fillDays([point('2026-02-28', 5), point('2026-03-02', 7)], 4, now)
  expect(days.map((d) => [d.at, d.requests])).toEqual([
    ['2026-02-27', 0],
    ['2026-02-28', 5],
    ['2026-03-01', 0],
    ['2026-03-02', 7],
  ])
  expect(days[2]).toEqual({ at: '2026-03-01', ...zeroUsageCounts() })
})

test('default: the last 24 hours as ISO times, this hour last', () => {
  const hours = fillHours([point('2026-03-02T10:00:00.000Z', 3), point('2026-03-01T11:00:00.000Z', 1)], now)
  expect(hours).toHaveLength(24)
  expect(hours[0]).toEqual(point('2026-03-01T11:00:00.000Z', 1))
  expect(hours[23]).toEqual(point('2026-03-02T10:00:00.000Z', 3))
  expect(hours.slice(1, 23).every((h) => h.requests === 0)).toBe(true)
})

test('behavior: points outside the window are left out', () => {
  expect(fillDays([point('2026-01-01', 9)], 2, now).map((d) => d.requests)).toEqual([0, 0])
  expect(fillHours([point('2026-03-01T10:00:00.000Z', 9)], now).some((h) => h.requests === 9)).toBe(false)
})
