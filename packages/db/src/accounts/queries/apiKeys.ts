import { randomBytes } from 'node:crypto'
import type { Hex } from '@uncle-rpc/chain'
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { hashSecret } from '../hashSecret.js'
import { type ApiKeyPlan, accounts, apiKeyPlans, apiKeys, operatorEmail } from '../schema.js'

/** One api_keys row. */
export type ApiKeyRow = typeof apiKeys.$inferSelect

export type InsertApiKeyParameters = {
  keyHash: Hex
  prefix: string
  plan: ApiKeyPlan
  label?: string | undefined
  /** Overrides of the plan's limits (undefined/null = the plan's). */
  rpsLimit?: number | null | undefined
  dailyLimit?: number | null | undefined
  batchLimit?: number | null | undefined
  /** Failover forwarding on for every request (effective only on a plan that allows it). Default false. */
  failover?: boolean | undefined
  /** The owner; default the operator account (keys made with the CLI). */
  accountId?: number | undefined
  /** Networks the key may call; undefined/null = every network. */
  networks?: readonly string[] | null | undefined
}

/** Stores a new key (its hash only). Throws if the hash is already stored (Postgres unique violation). */
export async function insertApiKey(db: DbOrTx, parameters: InsertApiKeyParameters): Promise<ApiKeyRow> {
  const { keyHash, prefix, plan, label, rpsLimit, dailyLimit, batchLimit, failover, accountId, networks } = parameters
  const operator = sql<number>`(select ${accounts.id} from ${accounts} where ${accounts.email} = ${operatorEmail})`
  const [row] = await db
    .insert(apiKeys)
    .values({
      keyHash,
      prefix,
      plan,
      label: label ?? null,
      rpsLimit: rpsLimit ?? null,
      dailyLimit: dailyLimit ?? null,
      batchLimit: batchLimit ?? null,
      failover: failover ?? false,
      accountId: accountId ?? operator,
      networks: networks == null ? null : [...networks],
    })
    .returning()
  return row!
}

/** The key with this hash (revoked or not), or null. */
export async function findApiKey(db: DbOrTx, { keyHash }: { keyHash: Hex }): Promise<ApiKeyRow | null> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash))
  return row ?? null
}

/** Every key, oldest first. */
export async function listApiKeys(db: DbOrTx): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
}

/** Revokes the key (keeps the first revocation time); false when no key has this hash. */
export async function revokeApiKey(db: DbOrTx, { keyHash, at = new Date() }: { keyHash: Hex; at?: Date }): Promise<boolean> {
  await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
  return (await findApiKey(db, { keyHash })) !== null
}

/** Moves the key to another plan; false when no key has this hash. */
export async function setApiKeyPlan(db: DbOrTx, { keyHash, plan }: { keyHash: Hex; plan: ApiKeyPlan }): Promise<boolean> {
  const rows = await db.update(apiKeys).set({ plan }).where(eq(apiKeys.keyHash, keyHash)).returning({ id: apiKeys.id })
  return rows.length > 0
}

/**
 * Records that the keys were used at `at`, in one statement for all of them (the RPC service
 * calls it about once a minute). last_used_at never moves backwards.
 */
export async function touchApiKeys(db: DbOrTx, { keyHashes, at }: { keyHashes: readonly Hex[]; at: Date }): Promise<void> {
  if (keyHashes.length === 0) return
  await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`greatest(${apiKeys.lastUsedAt}, ${at.toISOString()}::timestamptz)` })
    .where(inArray(apiKeys.keyHash, [...keyHashes]))
}

/** Characters of a key shown in listings and logs. */
export const keyPrefixLength = 8

/**
 * A new API key: 32 lowercase hex characters (128 random bits), the shape of an Infura project
 * id, so it drops into `/v3/<key>` URLs and clients that expect one.
 */
export function generateApiKey(): string {
  return randomBytes(16).toString('hex')
}

/** Whether `plan` is one of the plans (core, developer, team, growth, custom). */
export function isApiKeyPlan(plan: string): plan is ApiKeyPlan {
  return (apiKeyPlans as readonly string[]).includes(plan)
}

export type CreateApiKeyParameters = Omit<InsertApiKeyParameters, 'keyHash' | 'prefix'>

/** Creates and stores a key (only its sha256 is stored); returns the key, to be shown once. Limits: overrides of the plan's. */
export async function createApiKey(db: DbOrTx, parameters: CreateApiKeyParameters): Promise<{ key: string; row: ApiKeyRow }> {
  const key = generateApiKey()
  const row = await insertApiKey(db, { ...parameters, keyHash: hashSecret(key), prefix: key.slice(0, keyPrefixLength) })
  return { key, row }
}
