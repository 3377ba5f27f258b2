import { randomBytes } from 'node:crypto'
import { type ApiKeyPlan, type ApiKeyRow, apiKeyPlans, type DbOrTx, type InsertApiKeyParameters, insertApiKey } from '@uncle-rpc/db'
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

export type CreateApiKeyParameters = Omit<InsertApiKeyParameters, 'keyHash' | 'prefix'>

/** Creates and stores a key (only its sha256 is stored); returns the key, to be shown once. Limits: overrides of the plan's. */
export async function createApiKey(db: DbOrTx, parameters: CreateApiKeyParameters): Promise<{ key: string; row: ApiKeyRow }> {
  const key = generateApiKey()
  const row = await insertApiKey(db, { ...parameters, keyHash: hashApiKey(key), prefix: key.slice(0, keyPrefixLength) })
  return { key, row }
}
