import type { Hex } from '@uncle-rpc/chain'
import { and, desc, eq, gte, type SQL, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { apiKeys, usageDaily, usageHourly } from '../schema.js'

/**
 * The counters of a usage row (usage_daily, usage_hourly): calls admitted (`requests`, billed
 * minus `rateLimited`), `errors`, `forwarded`, `rateLimited`, and requests of the key refused
 * before they were read, by reason (`refused*`: not in `requests` or `errors`).
 */
export const usageCounters = [
  'requests',
  'errors',
  'forwarded',
  'rateLimited',
  'refusedRevoked',
  'refusedNetwork',
  'refusedOrigin',
  'refusedUserAgent',
  'refusedSecret',
] as const
export type UsageCounter = (typeof usageCounters)[number]
export type UsageCounts = Record<UsageCounter, number>

/** Every counter at 0. */
export function zeroUsageCounts(): UsageCounts {
  return { requests: 0, errors: 0, forwarded: 0, rateLimited: 0, refusedRevoked: 0, refusedNetwork: 0, refusedOrigin: 0, refusedUserAgent: 0, refusedSecret: 0 }
}

/** Adds `from`'s counters to `into`'s. */
export function addUsageCounts(into: UsageCounts, from: UsageCounts): void {
  for (const counter of usageCounters) into[counter] += from[counter]
}

/** Counts to add to one key's row for one UTC day (`day` as `YYYY-MM-DD`). */
export type UsageDelta = { keyId: number; day: string } & UsageCounts

/** One usage_daily row. */
export type UsageRow = typeof usageDaily.$inferSelect

/** Sums deltas that land on the same row (`rowOf`), so one upsert statement touches each row once. */
export function mergeUsageCounts<T extends UsageCounts>(deltas: readonly T[], rowOf: (delta: T) => string): Map<string, T> {
  const merged = new Map<string, T>()
  for (const d of deltas) {
    const row = rowOf(d)
    const seen = merged.get(row)
    if (seen === undefined) merged.set(row, { ...d })
    else addUsageCounts(seen, d)
  }
  return merged
}

/** The upsert's `set`: each counter column plus the inserted row's value. */
export function addedCounters(table: typeof usageDaily | typeof usageHourly): Record<UsageCounter, SQL> {
  const set = {} as Record<UsageCounter, SQL>
  for (const counter of usageCounters) set[counter] = sql`${table[counter]} + excluded.${sql.identifier(table[counter].name)}`
  return set
}

/** Sums of each counter column (for grouped reads). */
export function summedCounters(table: typeof usageDaily | typeof usageHourly): Record<UsageCounter, SQL<number>> {
  const sums = {} as Record<UsageCounter, SQL<number>>
  for (const counter of usageCounters) sums[counter] = sql<number>`sum(${table[counter]})`.mapWith(Number)
  return sums
}

/**
 * Adds the deltas to usage_daily in one statement (insert, or add to the existing row): the RPC
 * service calls it every few seconds with everything counted since. Deltas for the same key and
 * day are merged first (one statement may not touch a row twice).
 */
export async function addUsage(db: DbOrTx, deltas: readonly UsageDelta[]): Promise<void> {
  const merged = mergeUsageCounts(deltas, (d) => `${d.keyId}/${d.day}`)
  if (merged.size === 0) return
  await db
    .insert(usageDaily)
    .values([...merged.values()])
    .onConflictDoUpdate({ target: [usageDaily.keyId, usageDaily.day], set: addedCounters(usageDaily) })
}

/**
 * The usage rows of the key with this hash for the last `days` UTC days (today included), newest
 * first; null when no key has this hash.
 */
export async function listUsage(db: DbOrTx, { keyHash, days }: { keyHash: Hex; days: number }): Promise<UsageRow[] | null> {
  const [key] = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyHash, keyHash))
  if (key === undefined) return null
  const since = sql`((now() at time zone 'utc')::date - ${Math.max(0, Math.trunc(days) - 1)}::int)`
  return db
    .select()
    .from(usageDaily)
    .where(and(eq(usageDaily.keyId, key.id), gte(usageDaily.day, since)))
    .orderBy(desc(usageDaily.day))
}

/**
 * Calls of one key admitted on one UTC day (`YYYY-MM-DD`) as usage_daily has them: requests minus
 * rate-limited ones (0 without a row). Rebuilds a daily rate-limit count that Redis lost.
 */
export async function admittedOnDay(db: DbOrTx, { keyId, day }: { keyId: number; day: string }): Promise<number> {
  const [row] = await db
    .select({ admitted: sql<string>`${usageDaily.requests} - ${usageDaily.rateLimited}` })
    .from(usageDaily)
    .where(and(eq(usageDaily.keyId, keyId), eq(usageDaily.day, day)))
  return row === undefined ? 0 : Math.max(0, Number(row.admitted))
}
