import type { Hex } from '@uncle-rpc/chain'
import { asc, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { type ApiKeyPlan, accounts, apiKeyPlans, apiKeys, plans } from '../schema.js'

/** One plans row. */
export type PlanRow = typeof plans.$inferSelect

/** A key with the limits that apply to it: its own overrides, else its plan's. */
export type KeyPolicyRow = {
  id: number
  keyHash: Hex
  plan: ApiKeyPlan
  revokedAt: Date | null
  requestsPerSecond: number
  requestsPerDay: number
  maxBatchSize: number
  /** The plan allows failover forwarding. */
  failoverAllowed: boolean
  /** The key's own failover setting. */
  failover: boolean
  /** Networks the key may call; null = every network. */
  networks: string[] | null
  allowedOrigins: string[]
  allowedUserAgents: string[]
  /** sha256 of the key's secret; null = no secret required. */
  secretHash: Hex | null
}

export type UpdatePlanParameters = {
  name: ApiKeyPlan
  requestsPerSecond?: number | undefined
  requestsPerDay?: number | undefined
  maxBatchSize?: number | undefined
  failoverAllowed?: boolean | undefined
}

/** A key's limit overrides: a number sets one, null clears it (back to the plan's), undefined leaves it. */
export type SetApiKeyLimitsParameters = {
  keyHash: Hex
  rpsLimit?: number | null | undefined
  dailyLimit?: number | null | undefined
  batchLimit?: number | null | undefined
}

/** Every plan, in the order of apiKeyPlans (core … custom). */
export async function listPlans(db: DbOrTx): Promise<PlanRow[]> {
  const rows = await db.select().from(plans).orderBy(asc(plans.name))
  return rows.sort((a, b) => apiKeyPlans.indexOf(a.name) - apiKeyPlans.indexOf(b.name))
}

/** Changes a plan's limits (only the fields given); the updated row, or null when there is no such plan. */
export async function updatePlan(db: DbOrTx, { name, ...changes }: UpdatePlanParameters): Promise<PlanRow | null> {
  const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined))
  const [row] = await db
    .update(plans)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(plans.name, name))
    .returning()
  return row ?? null
}

function selectPolicies(db: DbOrTx) {
  return db
    .select({
      id: apiKeys.id,
      keyHash: apiKeys.keyHash,
      plan: apiKeys.plan,
      // Note: a disabled account's keys are refused like revoked ones.
      revokedAt: sql<Date | null>`coalesce(${apiKeys.revokedAt}, ${accounts.disabledAt})`.mapWith((v: string | Date | null) =>
        v === null ? null : new Date(v),
      ),
      // The developer's caps only ever lower the plan's limits (least() skips a null cap).
      requestsPerSecond: sql<number>`least(coalesce(${apiKeys.rpsLimit}, ${plans.requestsPerSecond}), ${apiKeys.rpsCap})`.mapWith(Number),
      requestsPerDay: sql<number>`least(coalesce(${apiKeys.dailyLimit}, ${plans.requestsPerDay}), ${apiKeys.dailyCap})`.mapWith(Number),
      maxBatchSize: sql<number>`coalesce(${apiKeys.batchLimit}, ${plans.maxBatchSize})`.mapWith(Number),
      failoverAllowed: plans.failoverAllowed,
      failover: apiKeys.failover,
      networks: apiKeys.networks,
      allowedOrigins: apiKeys.allowedOrigins,
      allowedUserAgents: apiKeys.allowedUserAgents,
      secretHash: apiKeys.secretHash,
    })
    .from(apiKeys)
    .innerJoin(plans, eq(plans.name, apiKeys.plan))
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
}

/** Every key with its effective limits (for the RPC service's periodic reload). */
export async function listKeyPolicies(db: DbOrTx): Promise<KeyPolicyRow[]> {
  return selectPolicies(db).orderBy(asc(apiKeys.id))
}

/** The key with this hash and its effective limits, or null. */
export async function findKeyPolicy(db: DbOrTx, { keyHash }: { keyHash: Hex }): Promise<KeyPolicyRow | null> {
  const [row] = await selectPolicies(db).where(eq(apiKeys.keyHash, keyHash))
  return row ?? null
}

/** Sets or clears a key's limit overrides; false when no key has this hash. */
export async function setApiKeyLimits(db: DbOrTx, { keyHash, ...limits }: SetApiKeyLimitsParameters): Promise<boolean> {
  const set = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined))
  if (Object.keys(set).length === 0) return (await findKeyPolicy(db, { keyHash })) !== null
  const rows = await db.update(apiKeys).set(set).where(eq(apiKeys.keyHash, keyHash)).returning({ id: apiKeys.id })
  return rows.length > 0
}

/** Turns the key's failover setting on or off; false when no key has this hash. */
export async function setApiKeyFailover(db: DbOrTx, { keyHash, failover }: { keyHash: Hex; failover: boolean }): Promise<boolean> {
  const rows = await db.update(apiKeys).set({ failover }).where(eq(apiKeys.keyHash, keyHash)).returning({ id: apiKeys.id })
  return rows.length > 0
}
