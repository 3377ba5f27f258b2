import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { signInFailures } from '../schema.js'

/** How failures turn into locks: the dashboard's sign-in throttle (apps/dashboard, auth/throttle.ts). */
export type SignInLockPolicy = {
  /** Failures of a key before the first lock. */
  freeFailures: number
  /** The first lock; doubled per further failure up to maxLockMs. */
  baseLockMs: number
  maxLockMs: number
  /** Failures this old (with no lock running) are forgotten: the next one counts as the first. */
  windowMs: number
}

/** `ms` milliseconds as an SQL interval. */
const millis = (ms: number) => sql`${ms}::float8 * interval '1 millisecond'`

/** Seconds until every one of `keys` may try again (0: now), by the database's clock. */
export async function signInWaitSeconds(db: DbOrTx, { keys }: { keys: readonly string[] }): Promise<number> {
  const [row] = await db
    .select({ seconds: sql<string | null>`max(ceil(extract(epoch from ${signInFailures.lockedUntil} - now())))` })
    .from(signInFailures)
    .where(and(inArray(signInFailures.key, [...keys]), sql`${signInFailures.lockedUntil} > now()`))
  return Math.max(0, Number(row?.seconds ?? 0))
}

/**
 * Counts one failure of `key` in one statement (concurrent failures from several processes all
 * count): a stale row starts again at 1; from `freeFailures` on, the key is locked for
 * baseLockMs × 2^(failures − freeFailures), at most maxLockMs, from now.
 */
export async function recordSignInFailure(db: DbOrTx, { key, policy }: { key: string; policy: SignInLockPolicy }): Promise<void> {
  const { freeFailures, baseLockMs, maxLockMs, windowMs } = policy
  const lockFor = (failures: ReturnType<typeof sql>) =>
    sql`case when ${failures} >= ${freeFailures} then now() + least(${maxLockMs}::float8, ${baseLockMs}::float8 * power(2, ${failures} - ${freeFailures})) * interval '1 millisecond' end`
  // Note: as the in-memory throttle did, a row is stale once its last failure is older than the
  // window and than the lock it set.
  const next = sql`case when now() - ${signInFailures.lastFailure} > greatest(${millis(windowMs)}, coalesce(${signInFailures.lockedUntil} - ${signInFailures.lastFailure}, interval '0')) then 1 else ${signInFailures.failures} + 1 end`
  await db
    .insert(signInFailures)
    .values({ key, failures: 1, lastFailure: sql`now()`, lockedUntil: lockFor(sql`1`) })
    .onConflictDoUpdate({ target: signInFailures.key, set: { failures: next, lastFailure: sql`now()`, lockedUntil: lockFor(next) } })
}

/** Forgets the failures of `key` (a right password for that email). */
export async function clearSignInFailures(db: DbOrTx, { key }: { key: string }): Promise<void> {
  await db.delete(signInFailures).where(eq(signInFailures.key, key))
}

/** Deletes the rows whose failures are forgotten (older than `windowMs`, no lock running); returns how many. */
export async function pruneSignInFailures(db: DbOrTx, { windowMs }: { windowMs: number }): Promise<number> {
  const rows = await db
    .delete(signInFailures)
    .where(
      and(
        lt(signInFailures.lastFailure, sql`now() - ${millis(windowMs)}`),
        or(isNull(signInFailures.lockedUntil), lt(signInFailures.lockedUntil, sql`now()`)),
      ),
    )
    .returning({ key: signInFailures.key })
  return rows.length
}
