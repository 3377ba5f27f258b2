import type { Hex } from '@uncle-rpc/chain'
import { blockKnown, type Db, getUncles, type ReplicaState } from '@uncle-rpc/db'
import type { BlockKnown, FindUncle, FoundUncle } from './context.js'

/** Where the index is read: the primary, or read replicas that fall back to it (createReadReplicas, which also reports their `states` for /ready). */
export type ReadSource = { read<T>(query: (db: Db) => Promise<T>): Promise<T>; states?: (() => ReplicaState[]) | undefined }

/** Every read on `db` itself (no replicas). */
export function primaryReads(db: Db): ReadSource {
  return { read: (query) => query(db) }
}

/** Most pairs in one statement: a larger burst is split, so that it uses several pool connections. */
export const maxLookupsPerStatement = 256

export type FindUncleOptions = {
  /** Told about every statement: its time from sending to rows (s), its lookups, whether it failed (metrics). */
  onStatement?: ((seconds: number, lookups: number, failed: boolean) => void) | undefined
}

type Waiting = { blockHash: Hex; index: number; resolve: (found: FoundUncle | null) => void; reject: (error: unknown) => void }

/**
 * The uncle lookup on Postgres, batched: the lookups asked for in one event-loop turn (every
 * request parsed from the sockets read in that turn) go to `source` as one getUncles statement per
 * network (`unnest` of the (block hash, index) pairs, a nested loop of primary-key reads), sent
 * from setImmediate once the turn's I/O callbacks have run. A failed statement fails each lookup of it.
 */
export function createFindUncle(source: ReadSource, { onStatement }: FindUncleOptions = {}): FindUncle {
  // Lookups waiting for the next flush, by network. Invariant: non-empty iff a flush is scheduled.
  let pending = new Map<string, Waiting[]>()

  async function send(network: string, batch: readonly Waiting[]): Promise<void> {
    const started = onStatement === undefined ? 0 : performance.now()
    try {
      const rows = await source.read((db) => getUncles(db, { network, keys: batch }))
      onStatement?.((performance.now() - started) / 1000, batch.length, false)
      for (const [i, waiting] of batch.entries()) {
        const row = rows[i] ?? null
        // Note: the row is the uncle itself (its extra blockNumber is not a header field, so no copy without it).
        waiting.resolve(row === null ? null : { uncle: row, blockNumber: row.blockNumber })
      }
    } catch (error) {
      onStatement?.((performance.now() - started) / 1000, batch.length, true)
      for (const waiting of batch) waiting.reject(error)
    }
  }

  function flush(): void {
    const batches = pending
    pending = new Map()
    for (const [network, batch] of batches)
      for (let from = 0; from < batch.length; from += maxLookupsPerStatement) void send(network, batch.slice(from, from + maxLookupsPerStatement))
  }

  return ({ network, blockHash, index }) =>
    new Promise<FoundUncle | null>((resolve, reject) => {
      if (pending.size === 0) setImmediate(flush)
      let batch = pending.get(network)
      if (batch === undefined) {
        batch = []
        pending.set(network, batch)
      }
      batch.push({ blockHash, index, resolve, reject })
    })
}

/** Whether a block is indexed: one primary-key read (blockKnown). */
export function createBlockKnown(source: ReadSource): BlockKnown {
  return (params) => source.read((db) => blockKnown(db, params))
}
