import { lt, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { requestLimits } from '../schema.js'

/** A fixed-window limit: at most `limit` hits per `windowMs`. */
export type RequestLimitPolicy = { limit: number; windowMs: number }

/** `ms` milliseconds as an SQL interval. */
const millis = (ms: number) => sql`${ms}::float8 * interval '1 millisecond'`

/**
 * Counts one hit of `key` in one statement (every process counts alike) and tells whether it is
 * within the limit; when not, the seconds until the window ends (for Retry-After). A window
 * older than `windowMs` starts again at 1.
 */
export async function hitRequestLimit(db: DbOrTx, { key, policy }: { key: string; policy: RequestLimitPolicy }): Promise<{ allowed: boolean; retryAfter: number }> {
  const stale = sql`${requestLimits.windowStart} <= now() - ${millis(policy.windowMs)}`
  const [row] = await db
    .insert(requestLimits)
    .values({ key, windowStart: sql`now()`, hits: 1 })
    .onConflictDoUpdate({
      target: requestLimits.key,
      set: {
        windowStart: sql`case when ${stale} then now() else ${requestLimits.windowStart} end`,
        hits: sql`case when ${stale} then 1 else ${requestLimits.hits} + 1 end`,
      },
    })
    .returning({
      hits: requestLimits.hits,
      seconds: sql<string>`ceil(extract(epoch from ${requestLimits.windowStart} + ${millis(policy.windowMs)} - now()))`,
    })
  const hits = row?.hits ?? 1
  return { allowed: hits <= policy.limit, retryAfter: hits <= policy.limit ? 0 : Math.max(1, Number(row?.seconds ?? 1)) }
}

/** Deletes counters whose window ended more than `windowMs` ago; the number deleted. */
export async function pruneRequestLimits(db: DbOrTx, { windowMs }: { windowMs: number }): Promise<number> {
  const rows = await db
    .delete(requestLimits)
    .where(lt(requestLimits.windowStart, sql`now() - ${millis(windowMs)}`))
    .returning({ key: requestLimits.key })
  return rows.length
}
