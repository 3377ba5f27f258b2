import { and, asc, eq, gte, lt, sql } from 'drizzle-orm'
import { boundedTransaction, type Db, type DbOrTx } from '../../client.js'
import { apiKeys, usageDaily, usageHourly } from '../schema.js'
import { addedCounters, addUsage, mergeUsageCounts, summedCounters, type UsageCounts, type UsageDelta } from './usage.js'
import { addMethodUsage, type MethodUsageDelta } from './usageMethods.js'

/** Counts to add to one key's row for one network and UTC hour (`hour` as an ISO time at the start of the hour). */
export type HourlyUsageDelta = { keyId: number; hour: string; network: string } & UsageCounts

/**
 * Writes one flush of the RPC's usage counts in one transaction: the per-day rows (billing,
 * daily limits), the per-hour rows (the dashboard's charts) and the per-method rows can never disagree.
 */
export async function addDailyAndHourlyUsage(
  db: Db,
  { daily, hourly, methods = [] }: { daily: readonly UsageDelta[]; hourly: readonly HourlyUsageDelta[]; methods?: readonly MethodUsageDelta[] | undefined },
): Promise<void> {
  if (daily.length === 0 && hourly.length === 0 && methods.length === 0) return
  await boundedTransaction(db, async (tx) => {
    await addUsage(tx, daily)
    await addHourlyUsage(tx, hourly)
    await addMethodUsage(tx, methods)
  })
}

/** Adds the deltas to usage_hourly in one statement (same-row deltas merged first, as addUsage does). */
export async function addHourlyUsage(db: DbOrTx, deltas: readonly HourlyUsageDelta[]): Promise<void> {
  const merged = mergeUsageCounts(deltas, (d) => `${d.keyId}/${d.hour}/${d.network}`)
  if (merged.size === 0) return
  await db
    .insert(usageHourly)
    .values([...merged.values()].map((d) => ({ ...d, hour: new Date(d.hour) })))
    .onConflictDoUpdate({ target: [usageHourly.keyId, usageHourly.hour, usageHourly.network], set: addedCounters(usageHourly) })
}

/** Deletes hourly rows older than `days` days; the number deleted. */
export async function pruneHourlyUsage(db: DbOrTx, { days }: { days: number }): Promise<number> {
  const rows = await db
    .delete(usageHourly)
    .where(lt(usageHourly.hour, sql`now() - make_interval(days => ${Math.trunc(days)})`))
    .returning({ keyId: usageHourly.keyId })
  return rows.length
}

/** One point of a usage series. */
export type UsagePoint = { at: string } & UsageCounts

export type AccountUsageParameters = {
  accountId: number
  /** Only this key of the account. */
  keyId?: number | undefined
  /** Only this network (daily series then come from usage_hourly). */
  network?: string | undefined
}

/**
 * Requests per UTC day for the last `days` days (today included), oldest first, days without
 * calls left out: usage_daily, or usage_hourly summed per day when a network is chosen.
 */
export async function accountDailyUsage(db: DbOrTx, parameters: AccountUsageParameters & { days: number }): Promise<UsagePoint[]> {
  const { accountId, keyId, network, days } = parameters
  const since = sql`((now() at time zone 'utc')::date - ${Math.max(0, Math.trunc(days) - 1)}::int)`
  const ownKey = and(eq(apiKeys.accountId, accountId), keyId === undefined ? undefined : eq(apiKeys.id, keyId))
  if (network === undefined) {
    return db
      .select({
        at: usageDaily.day,
        ...summedCounters(usageDaily),
      })
      .from(usageDaily)
      .innerJoin(apiKeys, eq(apiKeys.id, usageDaily.keyId))
      .where(and(ownKey, gte(usageDaily.day, since)))
      .groupBy(usageDaily.day)
      .orderBy(asc(usageDaily.day))
  }
  const day = sql<string>`to_char(${usageHourly.hour} at time zone 'utc', 'YYYY-MM-DD')`
  return db
    .select({
      at: day,
      ...summedCounters(usageHourly),
    })
    .from(usageHourly)
    .innerJoin(apiKeys, eq(apiKeys.id, usageHourly.keyId))
    .where(and(ownKey, eq(usageHourly.network, network), gte(usageHourly.hour, sql`${since}::timestamp at time zone 'utc'`)))
    .groupBy(day)
    .orderBy(asc(day))
}

/** Requests per UTC hour over the last 24 hours (this hour included), oldest first, as ISO times. */
export async function accountHourlyUsage(db: DbOrTx, parameters: AccountUsageParameters): Promise<UsagePoint[]> {
  const { accountId, keyId, network } = parameters
  const rows = await db
    .select({
      at: usageHourly.hour,
      ...summedCounters(usageHourly),
    })
    .from(usageHourly)
    .innerJoin(apiKeys, eq(apiKeys.id, usageHourly.keyId))
    .where(
      and(
        eq(apiKeys.accountId, accountId),
        keyId === undefined ? undefined : eq(apiKeys.id, keyId),
        network === undefined ? undefined : eq(usageHourly.network, network),
        gte(usageHourly.hour, sql`date_trunc('hour', now()) - interval '23 hours'`),
      ),
    )
    .groupBy(usageHourly.hour)
    .orderBy(asc(usageHourly.hour))
  return rows.map((r) => ({ ...r, at: r.at.toISOString() }))
}
