import type { Hex } from '@uncle-rpc/chain'
import { and, desc, eq, gte, sql } from 'drizzle-orm'
import type { PgColumn } from 'drizzle-orm/pg-core'
import type { DbOrTx } from '../client.js'
import { apiKeys, usageDaily } from '../schema.js'

/** Counts to add to one key's row for one UTC day (`day` as `YYYY-MM-DD`). */
export type UsageDelta = {
  keyId: number
  day: string
  requests: number
  errors: number
  forwarded: number
  rateLimited: number
}

/** One usage_daily row. */
export type UsageRow = typeof usageDaily.$inferSelect

type UsageCounts = { requests: number; errors: number; forwarded: number; rateLimited: number }

/** Sums deltas that land on the same row (`rowOf`), so one upsert statement touches each row once. */
export function mergeUsageCounts<T extends UsageCounts>(deltas: readonly T[], rowOf: (delta: T) => string): Map<string, T> {
  const merged = new Map<string, T>()
  for (const d of deltas) {
    const row = rowOf(d)
    const seen = merged.get(row)
    if (seen === undefined) merged.set(row, { ...d })
    else {
      seen.requests += d.requests
      seen.errors += d.errors
      seen.forwarded += d.forwarded
      seen.rateLimited += d.rateLimited
    }
  }
  return merged
}

/**
 * Adds the deltas to usage_daily in one statement (insert, or add to the existing row): the RPC
 * service calls it every few seconds with everything counted since. Deltas for the same key and
 * day are merged first (one statement may not touch a row twice).
 */
export async function addUsage(db: DbOrTx, deltas: readonly UsageDelta[]): Promise<void> {
  const merged = mergeUsageCounts(deltas, (d) => `${d.keyId}/${d.day}`)
  if (merged.size === 0) return
  const add = (column: PgColumn) => sql`${column} + excluded.${sql.identifier(column.name)}`
  await db
    .insert(usageDaily)
    .values([...merged.values()])
    .onConflictDoUpdate({
      target: [usageDaily.keyId, usageDaily.day],
      set: {
        requests: add(usageDaily.requests),
        errors: add(usageDaily.errors),
        forwarded: add(usageDaily.forwarded),
        rateLimited: add(usageDaily.rateLimited),
      },
    })
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
