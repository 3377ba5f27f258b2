import { randomBytes } from 'node:crypto'
import { type ApiKeyPlan, type ApiKeyRow, apiKeyPlans, type DbOrTx, insertApiKey } from '@uncle-rpc/db'
import { hashApiKey } from './auth.js'

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

/** Creates and stores a key (only its sha256 is stored); returns the key, to be shown once. */
export async function createApiKey(
  db: DbOrTx,
  { plan, label }: { plan: ApiKeyPlan; label?: string | undefined },
): Promise<{ key: string; row: ApiKeyRow }> {
  const key = generateApiKey()
  const row = await insertApiKey(db, { keyHash: hashApiKey(key), prefix: key.slice(0, keyPrefixLength), plan, label })
  return { key, row }
}
