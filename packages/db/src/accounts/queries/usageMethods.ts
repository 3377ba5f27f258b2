import type { Hex } from '@uncle-rpc/chain'
import { and, desc, eq, gte, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { apiKeys, usageDaily, usageMethods } from '../schema.js'

/** The method of usage_methods rows for calls that named no method served here. */
export const otherMethod = '(other)'

/** Calls to add to one key's row for one UTC day (`YYYY-MM-DD`), network and method. */
export type MethodUsageDelta = { keyId: number; day: string; network: string; method: string; requests: number; rateLimited: number }

/** Adds the deltas to usage_methods in one statement (same-row deltas merged first: one statement may not touch a row twice). */
export async function addMethodUsage(db: DbOrTx, deltas: readonly MethodUsageDelta[]): Promise<void> {
  const merged = new Map<string, MethodUsageDelta>()
  for (const d of deltas) {
    const row = `${d.keyId}/${d.day}/${d.network}/${d.method}`
    const seen = merged.get(row)
    if (seen === undefined) merged.set(row, { ...d })
    else {
      seen.requests += d.requests
      seen.rateLimited += d.rateLimited
    }
  }
  if (merged.size === 0) return
  await db
    .insert(usageMethods)
    .values([...merged.values()])
    .onConflictDoUpdate({
      target: [usageMethods.keyId, usageMethods.day, usageMethods.network, usageMethods.method],
      set: {
        requests: sql`${usageMethods.requests} + excluded.requests`,
        rateLimited: sql`${usageMethods.rateLimited} + excluded.rate_limited`,
      },
    })
}

/** Calls of one method on one UTC day, all networks summed. */
export type MethodUsageRow = { day: string; method: string; requests: number; rateLimited: number }

/**
 * The calls per method of the key with this hash for the last `days` UTC days (today included),
 * newest day first, methods by name; null when no key has this hash.
 */
export async function listMethodUsage(db: DbOrTx, { keyHash, days }: { keyHash: Hex; days: number }): Promise<MethodUsageRow[] | null> {
  const [key] = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyHash, keyHash))
  if (key === undefined) return null
  const since = sql`((now() at time zone 'utc')::date - ${Math.max(0, Math.trunc(days) - 1)}::int)`
  return db
    .select({
      day: usageMethods.day,
      method: usageMethods.method,
      requests: sql<number>`sum(${usageMethods.requests})`.mapWith(Number),
      rateLimited: sql<number>`sum(${usageMethods.rateLimited})`.mapWith(Number),
    })
    .from(usageMethods)
    .where(and(eq(usageMethods.keyId, key.id), gte(usageMethods.day, since)))
    .groupBy(usageMethods.day, usageMethods.method)
    .orderBy(desc(usageMethods.day), usageMethods.method)
}

/** Calls of one method over a period; method null: calls counted before usage was kept per method. */
export type MethodTotal = { method: string | null; requests: number; rateLimited: number }

/**
 * Calls per method over the last `days` UTC days (today included) for an account, or one of its
 * keys and/or networks, most called first. Without a network, the calls of usage_daily not in
 * usage_methods (days counted before calls were kept per method) come as method null.
 */
export async function accountMethodUsage(
  db: DbOrTx,
  { accountId, keyId, network, days }: { accountId: number; keyId?: number | undefined; network?: string | undefined; days: number },
): Promise<MethodTotal[]> {
  const since = sql`((now() at time zone 'utc')::date - ${Math.max(0, Math.trunc(days) - 1)}::int)`
  const ownKey = and(eq(apiKeys.accountId, accountId), keyId === undefined ? undefined : eq(apiKeys.id, keyId))
  const rows: MethodTotal[] = await db
    .select({
      method: usageMethods.method,
      requests: sql<number>`sum(${usageMethods.requests})`.mapWith(Number),
      rateLimited: sql<number>`sum(${usageMethods.rateLimited})`.mapWith(Number),
    })
    .from(usageMethods)
    .innerJoin(apiKeys, eq(apiKeys.id, usageMethods.keyId))
    .where(and(ownKey, network === undefined ? undefined : eq(usageMethods.network, network), gte(usageMethods.day, since)))
    .groupBy(usageMethods.method)
    .orderBy(desc(sql`sum(${usageMethods.requests})`), usageMethods.method)
  if (network !== undefined) return rows
  const [all] = await db
    .select({
      requests: sql<number>`coalesce(sum(${usageDaily.requests}), 0)`.mapWith(Number),
      rateLimited: sql<number>`coalesce(sum(${usageDaily.rateLimited}), 0)`.mapWith(Number),
    })
    .from(usageDaily)
    .innerJoin(apiKeys, eq(apiKeys.id, usageDaily.keyId))
    .where(and(ownKey, gte(usageDaily.day, since)))
  const recorded = rows.reduce((n, r) => n + r.requests, 0)
  const recordedLimited = rows.reduce((n, r) => n + r.rateLimited, 0)
  if (all !== undefined && all.requests > recorded) rows.push({ method: null, requests: all.requests - recorded, rateLimited: Math.max(0, all.rateLimited - recordedLimited) })
  return rows
}
