import type { Db } from '@uncle-rpc/db'
import { findKeyPolicy, type KeyPolicyRow, listKeyPolicies, touchApiKeys } from '@uncle-rpc/db/accounts'
import type { KeyRecord, KeyStore } from './keyRecord.js'
import { compileKeyAccess } from './keyAccess.js'

/**
 * API keys from the api_keys table, with the limits of their plan (plans) unless overridden, and
 * their restrictions compiled once per load (keyAccess.ts).
 */
export function createDbKeyStore(db: Db): KeyStore {
  const record = ({ revokedAt, networks, allowedOrigins, allowedUserAgents, secretHash, ...row }: KeyPolicyRow): KeyRecord => ({
    ...row,
    revoked: revokedAt !== null,
    access: compileKeyAccess({ networks, allowedOrigins, allowedUserAgents, secretHash }),
  })
  return {
    async find(keyHash) {
      const row = await findKeyPolicy(db, { keyHash })
      return row === null ? null : record(row)
    },
    all: async () => (await listKeyPolicies(db)).map(record),
    touch: (keyHashes, at) => touchApiKeys(db, { keyHashes, at }),
  }
}
