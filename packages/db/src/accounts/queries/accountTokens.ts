import type { Hex } from '@uncle-rpc/chain'
import { and, eq, gt, lt, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { type AccountTokenPurpose, accountTokens } from '../schema.js'

/** Stores an emailed token (its sha256) for the account, valid until `expiresAt`. */
export async function insertAccountToken(
  db: DbOrTx,
  { tokenHash, accountId, purpose, expiresAt }: { tokenHash: Hex; accountId: number; purpose: AccountTokenPurpose; expiresAt: Date },
): Promise<void> {
  await db.insert(accountTokens).values({ tokenHash, accountId, purpose, expiresAt })
}

/**
 * Uses a token: deletes it and returns its account id when it exists, has this purpose and has
 * not expired; else null. One statement, so a token works once even when two requests race.
 */
export async function takeAccountToken(db: DbOrTx, { tokenHash, purpose }: { tokenHash: Hex; purpose: AccountTokenPurpose }): Promise<number | null> {
  const [row] = await db
    .delete(accountTokens)
    .where(and(eq(accountTokens.tokenHash, tokenHash), eq(accountTokens.purpose, purpose), gt(accountTokens.expiresAt, sql`now()`)))
    .returning({ accountId: accountTokens.accountId })
  return row?.accountId ?? null
}

/** Deletes every token of the account with this purpose (older reset links die with a new password). */
export async function deleteAccountTokens(db: DbOrTx, { accountId, purpose }: { accountId: number; purpose: AccountTokenPurpose }): Promise<void> {
  await db.delete(accountTokens).where(and(eq(accountTokens.accountId, accountId), eq(accountTokens.purpose, purpose)))
}

/** Deletes expired tokens; the number deleted. */
export async function pruneAccountTokens(db: DbOrTx): Promise<number> {
  const rows = await db.delete(accountTokens).where(lt(accountTokens.expiresAt, sql`now()`)).returning({ accountId: accountTokens.accountId })
  return rows.length
}
