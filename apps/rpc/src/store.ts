import { type Db, findApiKey, getUncle, listApiKeys, touchApiKeys } from '@uncle-rpc/db'
import type { KeyRecord, KeyStore } from './auth.js'
import type { FindUncle } from './methods/eth_getUncleByBlockHashAndIndex.js'

/** The uncle lookup on Postgres: getUncle (one named prepared statement on the primary key). */
export function createFindUncle(db: Db): FindUncle {
  return async (params) => {
    const row = await getUncle(db, params)
    if (row === null) return null
    const { blockNumber, ...uncle } = row
    return { uncle, blockNumber }
  }
}

/** API keys from the api_keys table. */
export function createDbKeyStore(db: Db): KeyStore {
  const record = (row: { keyHash: KeyRecord['keyHash']; plan: string; revokedAt: Date | null }): KeyRecord => ({
    keyHash: row.keyHash,
    plan: row.plan,
    revoked: row.revokedAt !== null,
  })
  return {
    async find(keyHash) {
      const row = await findApiKey(db, { keyHash })
      return row === null ? null : record(row)
    },
    all: async () => (await listApiKeys(db)).map(record),
    touch: (keyHashes, at) => touchApiKeys(db, { keyHashes, at }),
  }
}
