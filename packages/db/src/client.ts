import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import pg from 'pg'

/** The drizzle database over a node-postgres pool. */
export type Db = NodePgDatabase & { $client: pg.Pool }
/** A transaction, as `db.transaction(async (tx) => …)` passes it. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
/** What every query function takes: the database or a transaction on it. */
export type DbOrTx = Db | Tx

/** The little logging the db package does; a pino logger fits. */
export type DbLogger = { info: (obj: object) => void; warn: (obj: object) => void }

export type CreateDbParameters = {
  /** postgres:// connection string. */
  url: string
  /** Pool size. Default 10 (enough on 2 cores: more connections only queue on the CPU). */
  max?: number
  /** Receives errors of idle pooled connections (the pool drops them and reconnects). */
  logger?: DbLogger
  /** Give up connecting after this long (a server that does not answer). Default: no limit. */
  connectionTimeoutMs?: number
}

export type CreateDbReturnType = { db: Db; pool: pg.Pool; close: () => Promise<void> }

/** Opens a pool on `url` (connections are made lazily, on first query) and wraps it in drizzle. */
export function createDb({ url, max = 10, logger, connectionTimeoutMs }: CreateDbParameters): CreateDbReturnType {
  const pool = new pg.Pool({ connectionString: url, max, ...(connectionTimeoutMs ? { connectionTimeoutMillis: connectionTimeoutMs } : {}) })
  // Note: without a listener, an idle connection dropped by the server crashes the process.
  pool.on('error', (error) => logger?.warn({ msg: 'idle database connection failed', error: error.message }))
  const db = drizzle({ client: pool })
  let closed: Promise<void> | undefined
  return {
    db,
    pool,
    close: () => {
      closed ??= pool.end()
      return closed
    },
  }
}
