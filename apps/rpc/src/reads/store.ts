import type { Hex } from '@uncle-rpc/chain'
import type { Db, ReplicaState } from '@uncle-rpc/db'
import { blockKnown, getUncleAnswers } from '@uncle-rpc/db/chain'
import type { BlockKnown, FindUncle, FoundUncle } from './lookup.js'

/** Where the index is read: the primary, or read replicas that fall back to it (createReadReplicas, which also reports their `states` for /ready). */
export type ReadSource = { read<T>(query: (db: Db) => Promise<T>): Promise<T>; states?: (() => ReplicaState[]) | undefined }

/** Every read on `db` itself (no replicas). */
export function primaryReads(db: Db): ReadSource {
  return { read: (query) => query(db) }
}

/** Default most pairs in one statement: a larger queue is sent as several statements. */
export const defaultMaxLookupsPerStatement = 256
/** Default uncle statements in flight at once: the default pool size (one per connection). */
const defaultMaxStatements = 10

export type FindUncleOptions = {
  /** Told about every statement: its time from sending to rows (s), its lookups, whether it failed (metrics). */
  onStatement?: ((seconds: number, lookups: number, failed: boolean) => void) | undefined
  /** Uncle statements in flight at once; set it to the pool size, so that each connection carries at most one. Default 10. */
  maxStatements?: number | undefined
  /** Most lookups in one statement. Default 256. */
  maxLookupsPerStatement?: number | undefined
}

type Waiting = {
  blockHash: Hex
  index: number
  resolve: (found: FoundUncle | null) => void
  reject: (error: unknown) => void
  /** Set when the caller gave up before the lookup was sent: it is skipped, not sent. */
  dropped: boolean
}

/**
 * The uncle lookup on Postgres, batched by round trip: at most `maxStatements` getUncleAnswers
 * statements are in flight (one per pool connection), and lookups that arrive meanwhile wait in a
 * queue per network. When a statement ends, the next one leaves at once with everything queued
 * (up to `maxLookupsPerStatement`, oldest network first); while fewer are in flight, the lookups
 * of one event-loop turn (every request parsed from the sockets read in that turn) leave together
 * from setImmediate. So a database far away costs each lookup about one round trip plus the wait
 * for a statement to end, whatever the rate, where one statement per turn waiting for a pool
 * connection held the rate at pool size / round trip. A statement is `unnest` of the (block hash,
 * index) pairs, a nested loop of primary-key reads, each uncle returned as its answer's text
 * (`totalDifficulty: null`: the contract, Infura's sample); a failed statement fails each lookup of it. A
 * lookup whose `cancel` aborts before it is sent leaves the queue and rejects with the reason.
 */
export function createFindUncle(source: ReadSource, options: FindUncleOptions = {}): FindUncle {
  const { onStatement, maxStatements = defaultMaxStatements, maxLookupsPerStatement = defaultMaxLookupsPerStatement } = options
  // Lookups not sent yet, by network, oldest first (each entry's `seq` orders networks by their oldest).
  const queues = new Map<string, { seq: number; waiting: Waiting }[]>()
  let seq = 0
  let inFlight = 0
  let scheduled = false

  async function send(network: string, batch: readonly Waiting[]): Promise<void> {
    const started = onStatement === undefined ? 0 : performance.now()
    try {
      const rows = await source.read((db) => getUncleAnswers(db, { network, keys: batch, totalDifficulty: 'null' }))
      onStatement?.((performance.now() - started) / 1000, batch.length, false)
      for (let i = 0; i < batch.length; i++) batch[i]!.resolve(rows[i] ?? null)
    } catch (error) {
      onStatement?.((performance.now() - started) / 1000, batch.length, true)
      for (const waiting of batch) waiting.reject(error)
    }
  }

  /** The network whose oldest queued lookup is the oldest; undefined when nothing is queued. */
  function oldestNetwork(): string | undefined {
    let oldest: { network: string; seq: number } | undefined
    for (const [network, queue] of queues) {
      const head = queue[0]
      if (head !== undefined && (oldest === undefined || head.seq < oldest.seq)) oldest = { network, seq: head.seq }
    }
    return oldest?.network
  }

  /** Up to `maxLookupsPerStatement` queued lookups of `network`, oldest first, skipping dropped ones. */
  function take(network: string): Waiting[] {
    const queue = queues.get(network) ?? []
    const batch: Waiting[] = []
    let taken = 0
    while (taken < queue.length && batch.length < maxLookupsPerStatement) {
      const { waiting } = queue[taken++]!
      if (!waiting.dropped) batch.push(waiting)
    }
    queue.splice(0, taken)
    if (queue.length === 0) queues.delete(network)
    return batch
  }

  /** Sends statements while fewer than `maxStatements` are in flight and lookups wait. */
  function pump(): void {
    while (inFlight < maxStatements) {
      const network = oldestNetwork()
      if (network === undefined) return
      const batch = take(network)
      if (batch.length === 0) continue
      inFlight++
      void send(network, batch).finally(() => {
        inFlight--
        pump()
      })
    }
  }

  const flush = () => {
    scheduled = false
    pump()
  }

  return ({ network, blockHash, index, cancel }) =>
    new Promise<FoundUncle | null>((resolve, reject) => {
      if (cancel?.aborted) return reject(cancel.reason)
      const waiting: Waiting = { blockHash, index, resolve, reject, dropped: false }
      // Note: once sent, a cancel changes nothing (its reject only settles a settled promise or is ignored by the batch).
      if (cancel !== undefined)
        cancel.onAbort = (reason) => {
          waiting.dropped = true
          reject(reason)
        }
      let queue = queues.get(network)
      if (queue === undefined) {
        queue = []
        queues.set(network, queue)
      }
      queue.push({ seq: seq++, waiting })
      // Note: with a statement free, wait for the rest of this turn's lookups; else the next statement to end sends them.
      if (!scheduled && inFlight < maxStatements) {
        scheduled = true
        setImmediate(flush)
      }
    })
}

/** Whether a block is indexed: one primary-key read (blockKnown). */
export function createBlockKnown(source: ReadSource): BlockKnown {
  return (params) => source.read((db) => blockKnown(db, params))
}
