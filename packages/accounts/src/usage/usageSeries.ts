import { type UsagePoint, zeroUsageCounts } from '@uncle-rpc/db/accounts'

// The queries leave out the days and hours without calls; a chart wants every one of them, in
// order, so the gaps are filled with zeros here.

const dayMs = 86_400_000
const hourMs = 3_600_000
const zero = (at: string): UsagePoint => ({ at, ...zeroUsageCounts() })

/** The last `days` UTC days (`YYYY-MM-DD`, oldest first, today last), each with its point or zeros. */
export function fillDays(points: readonly UsagePoint[], days: number, now = Date.now()): UsagePoint[] {
  const byDay = new Map(points.map((p) => [p.at, p]))
  const today = Math.floor(now / dayMs) * dayMs
  return Array.from({ length: days }, (_, i) => {
    const at = new Date(today - (days - 1 - i) * dayMs).toISOString().slice(0, 10)
    return byDay.get(at) ?? zero(at)
  })
}

/** The last 24 UTC hours (ISO times, oldest first, this hour last), each with its point or zeros. */
export function fillHours(points: readonly UsagePoint[], now = Date.now()): UsagePoint[] {
  const byHour = new Map(points.map((p) => [p.at, p]))
  const hour = Math.floor(now / hourMs) * hourMs
  return Array.from({ length: 24 }, (_, i) => {
    const at = new Date(hour - (23 - i) * hourMs).toISOString()
    return byHour.get(at) ?? zero(at)
  })
}
