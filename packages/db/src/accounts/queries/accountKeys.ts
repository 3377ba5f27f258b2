import type { Hex } from '@uncle-rpc/chain'
import { and, asc, count, eq, gt, isNull } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { apiKeys, plans } from '../schema.js'

// Every query here is scoped by account: a key id of another account matches nothing, so the
// dashboard cannot read or change another account's keys whatever id a request names.

/** A key's restrictions and limits, as both the key view and a rotation's copy read them. */
const settingColumns = {
  networks: apiKeys.networks,
  allowedOrigins: apiKeys.allowedOrigins,
  allowedUserAgents: apiKeys.allowedUserAgents,
  secretHash: apiKeys.secretHash,
  rpsCap: apiKeys.rpsCap,
  dailyCap: apiKeys.dailyCap,
  rpsLimit: apiKeys.rpsLimit,
  dailyLimit: apiKeys.dailyLimit,
}

/** A key as its owner sees it in the dashboard (never its hash or its secret's hash). */
export type AccountKeyRow = {
  id: number
  name: string | null
  prefix: string
  plan: string
  createdAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
  networks: string[] | null
  allowedOrigins: string[]
  allowedUserAgents: string[]
  requireSecret: boolean
  /** The developer's caps (null = the plan's limit). */
  rpsCap: number | null
  dailyCap: number | null
  /** The limits in force: the plan's (or the operator's override), lowered by the caps. */
  planRps: number
  planDaily: number
}

/** The settings the dashboard may change; undefined leaves one as it is, null clears it. */
export type KeySettingsPatch = {
  name?: string | undefined
  networks?: string[] | null | undefined
  allowedOrigins?: string[] | undefined
  allowedUserAgents?: string[] | undefined
  rpsCap?: number | null | undefined
  dailyCap?: number | null | undefined
}

function selectKeys(db: DbOrTx) {
  return db
    .select({
      id: apiKeys.id,
      name: apiKeys.label,
      prefix: apiKeys.prefix,
      plan: apiKeys.plan,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      revokedAt: apiKeys.revokedAt,
      ...settingColumns,
      planRps: plans.requestsPerSecond,
      planDaily: plans.requestsPerDay,
    })
    .from(apiKeys)
    .innerJoin(plans, eq(plans.name, apiKeys.plan))
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectKeys>['execute']>>[number]
const toRow = ({ secretHash, rpsLimit, dailyLimit, planRps, planDaily, ...row }: Selected): AccountKeyRow => ({
  ...row,
  requireSecret: secretHash !== null,
  planRps: rpsLimit ?? planRps,
  planDaily: dailyLimit ?? planDaily,
})

/** A page of the account's keys, revoked ones included, oldest first: `limit` keys with ids above `after`. */
export async function listAccountKeys(
  db: DbOrTx,
  { accountId, limit = 1000, after = 0 }: { accountId: number; limit?: number; after?: number },
): Promise<AccountKeyRow[]> {
  const rows = await selectKeys(db)
    .where(and(eq(apiKeys.accountId, accountId), gt(apiKeys.id, after)))
    .orderBy(asc(apiKeys.id))
    .limit(limit)
  return rows.map(toRow)
}

/** How many live (not revoked) keys the account has. */
export async function countLiveAccountKeys(db: DbOrTx, { accountId }: { accountId: number }): Promise<number> {
  const [row] = await db
    .select({ keys: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
  return row?.keys ?? 0
}

/** The account's key with this id, or null (also when the key belongs to another account). */
export async function findAccountKey(db: DbOrTx, { accountId, keyId }: { accountId: number; keyId: number }): Promise<AccountKeyRow | null> {
  const [row] = await selectKeys(db).where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId)))
  return row === undefined ? null : toRow(row)
}

/** Changes a live key's settings; the key after the change, or null when the account has no such live key. */
export async function updateAccountKey(
  db: DbOrTx,
  { accountId, keyId, patch }: { accountId: number; keyId: number; patch: KeySettingsPatch },
): Promise<AccountKeyRow | null> {
  const { name, ...rest } = patch
  const set = Object.fromEntries(Object.entries({ ...rest, label: name }).filter(([, v]) => v !== undefined))
  if (Object.keys(set).length > 0) {
    const rows = await db
      .update(apiKeys)
      .set(set)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id })
    if (rows.length === 0) return null
  }
  const key = await findAccountKey(db, { accountId, keyId })
  return key === null || key.revokedAt !== null ? null : key
}

/** Sets (or clears, null) the sha256 of a live key's secret; false when the account has no such live key. */
export async function setAccountKeySecret(
  db: DbOrTx,
  { accountId, keyId, secretHash }: { accountId: number; keyId: number; secretHash: Hex | null },
): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ secretHash })
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
  return rows.length > 0
}

/** Revokes the account's live key; false when there is no such live key. */
export async function revokeAccountKey(db: DbOrTx, { accountId, keyId }: { accountId: number; keyId: number }): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
  return rows.length > 0
}

/** The stored settings of a key needed to copy it on rotation (its owner's), or null. */
export async function keySettingsForCopy(db: DbOrTx, { accountId, keyId }: { accountId: number; keyId: number }) {
  const [row] = await db
    .select({
      label: apiKeys.label,
      plan: apiKeys.plan,
      ...settingColumns,
      batchLimit: apiKeys.batchLimit,
      failover: apiKeys.failover,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId)))
  return row ?? null
}

/** Copies a key's settings onto another key of the same account (rotation). */
export async function copyKeySettings(
  db: DbOrTx,
  { accountId, keyId, settings }: { accountId: number; keyId: number; settings: NonNullable<Awaited<ReturnType<typeof keySettingsForCopy>>> },
): Promise<void> {
  const { revokedAt: _revoked, ...copy } = settings
  await db
    .update(apiKeys)
    .set(copy)
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId)))
}
