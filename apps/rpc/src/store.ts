import { blockKnown, type Db, findKeyPolicy, getUncle, type KeyPolicyRow, listKeyPolicies, type ReplicaState, touchApiKeys } from '@uncle-rpc/db'
import type { KeyRecord, KeyStore } from './auth.js'
import { compileKeyAccess } from './keyAccess.js'
import type { BlockKnown, FindUncle } from './methods/eth_getUncleByBlockHashAndIndex.js'

/** Where the index is read: the primary, or read replicas that fall back to it (createReadReplicas, which also reports their `states` for /ready). */
export type ReadSource = { read<T>(query: (db: Db) => Promise<T>): Promise<T>; states?: (() => ReplicaState[]) | undefined }

/** Every read on `db` itself (no replicas). */
export function primaryReads(db: Db): ReadSource {
  return { read: (query) => query(db) }
}

/** The uncle lookup on Postgres: getUncle (one named prepared statement on the primary key). */
export function createFindUncle(source: ReadSource): FindUncle {
  return async (params) => {
    const row = await source.read((db) => getUncle(db, params))
    if (row === null) return null
    const { blockNumber, ...uncle } = row
    return { uncle, blockNumber }
  }
}

/** Whether a block is indexed: one primary-key read (blockKnown). */
export function createBlockKnown(source: ReadSource): BlockKnown {
  return (params) => source.read((db) => blockKnown(db, params))
}

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
