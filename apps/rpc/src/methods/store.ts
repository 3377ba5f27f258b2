import { blockKnown, type Db, getUncle, type ReplicaState } from '@uncle-rpc/db'
import type { BlockKnown, FindUncle } from './context.js'

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
