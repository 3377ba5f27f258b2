import type { Hex } from '@uncle-rpc/chain'
import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import { boundedTransaction, type DbOrTx } from '../../client.js'
import { type ApiKeyPlan, accounts, apiKeys, sessions, upgradeRequests } from '../schema.js'

/** One accounts row. */
export type AccountRow = typeof accounts.$inferSelect
/** One upgrade_requests row, with the account's email. */
export type UpgradeRequestRow = typeof upgradeRequests.$inferSelect & { email: string }

/** Emails are compared lowercased and trimmed. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

/** Stores a new account; null when the email is taken. */
export async function insertAccount(
  db: DbOrTx,
  {
    email,
    passwordHash,
    plan = 'core',
    verified = false,
  }: { email: string; passwordHash: string | null; plan?: ApiKeyPlan; /** The address is known to be its owner's (the operator made the account). */ verified?: boolean },
): Promise<AccountRow | null> {
  const [row] = await db
    .insert(accounts)
    .values({ email: normalizeEmail(email), passwordHash, plan, emailVerifiedAt: verified ? sql`now()` : null })
    .onConflictDoNothing()
    .returning()
  return row ?? null
}

/** The account with this email (any case), or null. */
export async function findAccountByEmail(db: DbOrTx, { email }: { email: string }): Promise<AccountRow | null> {
  const [row] = await db.select().from(accounts).where(eq(accounts.email, normalizeEmail(email)))
  return row ?? null
}

/** Every account with its number of live (not revoked) keys, oldest first. */
export async function listAccounts(db: DbOrTx): Promise<(AccountRow & { keys: number })[]> {
  return db
    .select({
      id: accounts.id,
      email: accounts.email,
      passwordHash: accounts.passwordHash,
      plan: accounts.plan,
      createdAt: accounts.createdAt,
      disabledAt: accounts.disabledAt,
      emailVerifiedAt: accounts.emailVerifiedAt,
      keys: sql<number>`count(${apiKeys.id}) filter (where ${apiKeys.revokedAt} is null)`.mapWith(Number),
    })
    .from(accounts)
    .leftJoin(apiKeys, eq(apiKeys.accountId, accounts.id))
    .groupBy(accounts.id)
    .orderBy(asc(accounts.id))
}

/**
 * Moves the account and every key of it to `plan`, and marks its open upgrade requests for that
 * plan (or a lower one) granted, in one transaction. False when there is no such account.
 */
export async function setAccountPlan(db: DbOrTx, { email, plan }: { email: string; plan: ApiKeyPlan }): Promise<boolean> {
  return boundedTransaction(db, async (tx) => {
    const [row] = await tx.update(accounts).set({ plan }).where(eq(accounts.email, normalizeEmail(email))).returning({ id: accounts.id })
    if (row === undefined) return false
    await tx.update(apiKeys).set({ plan }).where(eq(apiKeys.accountId, row.id))
    const granted: ApiKeyPlan[] = plan === 'custom' ? ['growth', 'custom'] : plan === 'growth' ? ['growth'] : []
    if (granted.length > 0)
      await tx
        .update(upgradeRequests)
        .set({ grantedAt: sql`now()` })
        .where(and(eq(upgradeRequests.accountId, row.id), isNull(upgradeRequests.grantedAt), inArray(upgradeRequests.plan, granted)))
    return true
  })
}

/** Disables (or enables again) the account: no sign-in, its sessions end, its keys are refused. False when there is none. */
export async function setAccountDisabled(db: DbOrTx, { email, disabled }: { email: string; disabled: boolean }): Promise<boolean> {
  return boundedTransaction(db, async (tx) => {
    const [row] = await tx
      .update(accounts)
      .set({ disabledAt: disabled ? sql`coalesce(${accounts.disabledAt}, now())` : null })
      .where(eq(accounts.email, normalizeEmail(email)))
      .returning({ id: accounts.id })
    if (row === undefined) return false
    if (disabled) await tx.delete(sessions).where(eq(sessions.accountId, row.id))
    return true
  })
}

/** The account with this id, or null. */
export async function findAccountById(db: DbOrTx, { accountId }: { accountId: number }): Promise<AccountRow | null> {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, accountId))
  return row ?? null
}

/** Locks the account's row until the transaction ends (serializes, e.g., key creation against the per-account cap). */
export async function lockAccount(tx: DbOrTx, { accountId }: { accountId: number }): Promise<void> {
  await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for('update')
}

/** Marks the account's email as verified (its owner opened a link sent there). */
export async function markEmailVerified(db: DbOrTx, { accountId }: { accountId: number }): Promise<void> {
  await db
    .update(accounts)
    .set({ emailVerifiedAt: sql`coalesce(${accounts.emailVerifiedAt}, now())` })
    .where(eq(accounts.id, accountId))
}

/** Stores a new password hash and ends every session of the account. */
export async function setAccountPassword(db: DbOrTx, { accountId, passwordHash }: { accountId: number; passwordHash: string }): Promise<void> {
  await boundedTransaction(db, async (tx) => {
    await tx.update(accounts).set({ passwordHash }).where(eq(accounts.id, accountId))
    await tx.delete(sessions).where(eq(sessions.accountId, accountId))
  })
}

/** Ends every session of the account ("sign out everywhere"); the number ended. */
export async function deleteAccountSessions(db: DbOrTx, { accountId }: { accountId: number }): Promise<number> {
  const rows = await db.delete(sessions).where(eq(sessions.accountId, accountId)).returning({ accountId: sessions.accountId })
  return rows.length
}

/** Records an upgrade request (one open request per account and plan: a repeat returns the open one). */
export async function insertUpgradeRequest(
  db: DbOrTx,
  { accountId, plan, message }: { accountId: number; plan: 'growth' | 'custom'; message?: string | undefined },
): Promise<typeof upgradeRequests.$inferSelect> {
  const [open] = await db
    .select()
    .from(upgradeRequests)
    .where(and(eq(upgradeRequests.accountId, accountId), eq(upgradeRequests.plan, plan), isNull(upgradeRequests.grantedAt)))
  if (open !== undefined) return open
  const [row] = await db.insert(upgradeRequests).values({ accountId, plan, message: message ?? null }).returning()
  return row!
}

/** Upgrade requests, newest first: of one account, or (no accountId) of every account; `open` = not granted yet. */
export async function listUpgradeRequests(db: DbOrTx, { accountId, open = false }: { accountId?: number; open?: boolean } = {}): Promise<UpgradeRequestRow[]> {
  const where = and(accountId === undefined ? undefined : eq(upgradeRequests.accountId, accountId), open ? isNull(upgradeRequests.grantedAt) : undefined)
  return db
    .select({
      id: upgradeRequests.id,
      accountId: upgradeRequests.accountId,
      plan: upgradeRequests.plan,
      message: upgradeRequests.message,
      createdAt: upgradeRequests.createdAt,
      grantedAt: upgradeRequests.grantedAt,
      email: accounts.email,
    })
    .from(upgradeRequests)
    .innerJoin(accounts, eq(accounts.id, upgradeRequests.accountId))
    .where(where)
    .orderBy(desc(upgradeRequests.createdAt), desc(upgradeRequests.id))
}

/** A signed-in session with its account. */
export type SessionRow = { accountId: number; email: string; plan: ApiKeyPlan; emailVerified: boolean; csrfToken: string; expiresAt: Date }

/** Stores a session (the sha256 of its token). */
export async function insertSession(
  db: DbOrTx,
  { tokenHash, accountId, csrfToken, expiresAt }: { tokenHash: Hex; accountId: number; csrfToken: string; expiresAt: Date },
): Promise<void> {
  await db.insert(sessions).values({ tokenHash, accountId, csrfToken, expiresAt })
}

/**
 * The live session with this token hash (not expired, not idle for `idleMs`, account not
 * disabled), or null. Marks it seen (at most one write a minute per session).
 */
export async function findSession(db: DbOrTx, { tokenHash, idleMs }: { tokenHash: Hex; idleMs: number }): Promise<SessionRow | null> {
  const [row] = await db
    .select({
      accountId: accounts.id,
      email: accounts.email,
      plan: accounts.plan,
      emailVerified: sql<boolean>`${accounts.emailVerifiedAt} is not null`,
      csrfToken: sessions.csrfToken,
      expiresAt: sessions.expiresAt,
      lastSeenAt: sessions.lastSeenAt,
    })
    .from(sessions)
    .innerJoin(accounts, eq(accounts.id, sessions.accountId))
    .where(
      and(
        eq(sessions.tokenHash, tokenHash),
        gt(sessions.expiresAt, sql`now()`),
        gt(sessions.lastSeenAt, sql`now() - ${idleMs}::float8 * interval '1 millisecond'`),
        isNull(accounts.disabledAt),
      ),
    )
  if (row === undefined) return null
  await db
    .update(sessions)
    .set({ lastSeenAt: sql`now()` })
    .where(and(eq(sessions.tokenHash, tokenHash), lt(sessions.lastSeenAt, sql`now() - interval '1 minute'`)))
  const { lastSeenAt: _seen, ...session } = row
  return session
}

/** Ends a session (sign-out). */
export async function deleteSession(db: DbOrTx, { tokenHash }: { tokenHash: Hex }): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash))
}

/** Deletes expired sessions, and those idle for `idleMs`; the number deleted. */
export async function deleteExpiredSessions(db: DbOrTx, { idleMs }: { idleMs: number }): Promise<number> {
  const rows = await db
    .delete(sessions)
    .where(or(lt(sessions.expiresAt, sql`now()`), lt(sessions.lastSeenAt, sql`now() - ${idleMs}::float8 * interval '1 millisecond'`)))
    .returning({ accountId: sessions.accountId })
  return rows.length
}
