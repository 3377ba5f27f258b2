import { sql } from 'drizzle-orm'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import { releaseConnectionsOfFailedTransactions } from './drizzleInternals.js'
import { pipelineQueries } from './pipelinedQueries.js'
import { createTimerList, type TimerList } from '@uncle-rpc/process'

/** The drizzle database over a node-postgres pool. */
export type Db = NodePgDatabase & { $client: pg.Pool }
/** A transaction, as `db.transaction(async (tx) => …)` passes it. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
/** What every query function takes: the database or a transaction on it. */
export type DbOrTx = Db | Tx

/** The little logging the db package does; a pino logger fits. */
export type DbLogger = { info: (obj: object) => void; warn: (obj: object) => void }

/**
 * Time bounds of every connection of a pool (0 turns one off). node-postgres sets none by default,
 * so a hung server (a stopped process, a half-open connection) would hold a caller forever.
 */
export type DbTimeouts = {
  /** Server side (`statement_timeout`): Postgres cancels a statement running longer; the connection stays usable. */
  statementTimeoutMs: number
  /**
   * Client side: a query with no answer this long fails and its connection is destroyed (the
   * server may still be running it), as node-postgres's query_timeout does, with one timer per
   * pool (boundQueries). Keep it above statementTimeoutMs, so that a slow but live server cancels first.
   */
  queryTimeoutMs: number
  /** Connecting, and waiting for a free connection of a full pool. */
  connectTimeoutMs: number
  /** TCP keep-alive: first probe after this much idle time (finds dead peers of idle connections). */
  keepAliveMs: number
}

/** Bounds for a pool that is given none: long enough for any statement of ours, short enough to never hang. */
export const defaultDbTimeouts: DbTimeouts = { statementTimeoutMs: 30_000, queryTimeoutMs: 35_000, connectTimeoutMs: 5000, keepAliveMs: 10_000 }

export type CreateDbParameters = {
  /** postgres:// connection string. */
  url: string
  /** Pool size. Default 10 (enough on 2 cores: more connections only queue on the CPU). */
  max?: number
  /** Receives errors of idle pooled connections (the pool drops them and reconnects). */
  logger?: DbLogger
  /** Default {@link defaultDbTimeouts}, field by field. */
  timeouts?: Partial<DbTimeouts> | undefined
  /**
   * Plan each prepared statement once per connection (`plan_cache_mode = force_generic_plan`).
   * Postgres otherwise plans an `unnest($1)` lookup again on every execution (its custom plan of
   * a short array always looks cheaper than the generic one), which was half of its CPU per
   * statement. For pools whose statements are key lookups (the RPC's). Default false.
   */
  genericPlans?: boolean | undefined
  /**
   * Statements in flight on one connection for pool.query (pipelinedQueries.ts): above 1, pool.query
   * runs on `max` connections of its own in pg's pipeline mode, each carrying up to this many
   * statements; pool.connect() (transactions) keeps plain ones. Default 1: one statement per connection.
   */
  pipeline?: number | undefined
}

export type CreateDbReturnType = { db: Db; pool: pg.Pool; close: () => Promise<void> }

// Pools whose server connections were found not to keep named prepared statements between
// transactions (a pooler in transaction mode: PgBouncer before 1.21 lends each transaction any
// server connection), with the logger to tell once.
const unnamedPools = new WeakMap<pg.Pool, boolean>()
const poolLoggers = new WeakMap<pg.Pool, DbLogger>()
// The statement timeout each pool asks for at connect time (ms), for the transactions that set it again (boundedTransaction).
const poolStatementTimeouts = new WeakMap<pg.Pool, number>()

/** SQLSTATEs of a named statement the server connection does not have (26000), or has from another client (42P05). */
const lostStatementCodes = new Set(['26000', '42P05'])

/** Whether `error` (or its cause: drizzle wraps the driver's error) says a named prepared statement was lost or clashed on the server connection. */
export function isLostStatementError(error: unknown): boolean {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | undefined
  return lostStatementCodes.has(e?.code as string) || lostStatementCodes.has(e?.cause?.code as string)
}

/** False once `pool` was found not to keep named prepared statements: its statements go unnamed from then on. */
export function namedStatements(pool: pg.Pool): boolean {
  return unnamedPools.get(pool) !== true
}

/** Marks `pool` as one whose named statements do not survive (told once in its logger). */
export function useUnnamedStatements(pool: pg.Pool, error: unknown): void {
  if (unnamedPools.get(pool) === true) return
  unnamedPools.set(pool, true)
  poolLoggers.get(pool)?.warn({
    msg: 'named prepared statements do not survive on this database connection (a pooler in transaction mode, such as PgBouncer before 1.21?): statements are sent unnamed from now on, planned on every execution',
    error: (error as Error).message,
  })
}

/** node-postgres's error for a query that hit query_timeout. */
export const queryTimeoutMessage = 'Query read timeout'

/** A query waiting for its answer: when it is due, and what its expiry does. */
type WaitingQuery = { due: number; expire: () => void }

/**
 * Bounds every query of `client` by `timeoutMs` (the pool's query timeout, with one timer for all
 * the pool's queries in `deadlines`): a query with no answer in time fails with
 * {@link queryTimeoutMessage}, as node-postgres's query_timeout fails it, and its connection is
 * destroyed first. node-postgres only reports the error: the query stays active
 * on the connection, which never takes another one (node-postgres #3399), yet a client checked out
 * with pool.connect() (drizzle's transactions) goes back to the pool on release() and the next
 * caller hangs on it. Once ended, release() drops it instead (pool.query releases a failed client
 * with its error, which drops it too). Every query is run in callback form (a promise is made
 * here for the promise form); a submittable (a cursor, a COPY stream) reports its own errors and
 * keeps node-postgres's own timer, given as its query_timeout.
 */
function boundQueries(client: pg.Client, deadlines: TimerList<WaitingQuery>, timeoutMs: number): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown
  ;(client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const config = args[0] as { submit?: unknown; query_timeout?: number } | null | undefined
    if (typeof config === 'object' && config !== null && typeof config.submit === 'function') {
      config.query_timeout ??= timeoutMs
      return query(...args)
    }
    const last = args[args.length - 1]
    let done: (error: unknown, result?: unknown) => void
    let promise: Promise<unknown> | undefined
    if (typeof last === 'function') {
      done = last as typeof done
      args.pop()
    } else promise = new Promise((resolve, reject) => (done = (error, result) => (error ? reject(error) : resolve(result))))
    let settled = false
    const deadline = deadlines.add({
      due: performance.now() + timeoutMs,
      expire: () => {
        if (settled) return
        settled = true
        // Note: end() destroys the socket at once when a query is active, and marks the client as
        // ending, so its closing is no 'error' event (which would crash a checked-out client with
        // no listener); it comes before the callback, which may release the client.
        client.end(() => undefined)
        done(new Error(queryTimeoutMessage))
      },
    })
    const answered = (error: unknown, result?: unknown) => {
      // Note: after a timeout the query's own failure (the connection ended) is not reported again.
      if (settled) return
      settled = true
      deadlines.remove(deadline)
      done(error, result)
    }
    try {
      // Note: pg reads a function as the callback in second place (no values) or third.
      if (args.length === 1) query(args[0], answered)
      else query(args[0], args[1], answered)
    } catch (error) {
      settled = true
      deadlines.remove(deadline)
      throw error
    }
    return promise
  }
}

/**
 * `url` and an `options` startup parameter holding `setting` after the URL's own options (the
 * URL's would replace the config's in node-postgres). Set when connecting, so every connection
 * has it before its first statement.
 */
function withStartupSetting(url: string, setting: string): { connectionString: string; options: string } {
  const parsed = new URL(url)
  const own = parsed.searchParams.get('options')
  parsed.searchParams.delete('options')
  return { connectionString: parsed.toString(), options: own === null ? setting : `${own} ${setting}` }
}

/**
 * Logs once when the server does not have the settings the pool asked for at connect time: PgBouncer
 * drops the startup parameters its `ignore_startup_parameters` names. Statements then stay bounded
 * by the client's own deadline (query_timeout), which closes the connection instead of cancelling.
 */
async function reportDroppedSettings(
  client: pg.Pool,
  asked: { statement_timeout: string | undefined; plan_cache_mode: string | undefined },
  queryTimeoutMs: number,
  logger: DbLogger,
): Promise<void> {
  try {
    const { rows } = await client.query<{ statement_timeout: string; plan_cache_mode: string }>(
      // Note: pg_settings gives statement_timeout in ms, where current_setting gives '30s' or '1min'.
      `select (select setting from pg_settings where name = 'statement_timeout') as statement_timeout, current_setting('plan_cache_mode') as plan_cache_mode`,
    )
    const row = rows[0]
    if (row === undefined) return
    const dropped: string[] = []
    if (asked.statement_timeout !== undefined && row.statement_timeout !== asked.statement_timeout)
      dropped.push(`statement_timeout (asked ${asked.statement_timeout} ms, has ${row.statement_timeout} ms)`)
    if (asked.plan_cache_mode !== undefined && row.plan_cache_mode !== asked.plan_cache_mode) dropped.push(`plan_cache_mode (asked ${asked.plan_cache_mode}, has ${row.plan_cache_mode})`)
    if (dropped.length > 0)
      logger.warn({
        msg: `the server does not have the settings asked for at connect time (a pooler's ignore_startup_parameters drops them): statements are bounded by the client's deadline (${queryTimeoutMs} ms, which closes the connection); set them on the database role instead (ALTER ROLE … SET …)`,
        dropped,
      })
  } catch {
    // Note: only a check for the log; the connection's own queries report its failures.
  }
}

/** Opens a pool on `url` (connections are made lazily, on first query) and wraps it in drizzle. */
export function createDb({ url, max = 10, logger, timeouts, genericPlans = false, pipeline = 1 }: CreateDbParameters): CreateDbReturnType {
  const t = { ...defaultDbTimeouts, ...timeouts }
  const pool = new pg.Pool({
    ...(genericPlans ? withStartupSetting(url, '-c plan_cache_mode=force_generic_plan') : { connectionString: url }),
    max,
    ...(t.statementTimeoutMs > 0 ? { statement_timeout: t.statementTimeoutMs } : {}),
    ...(t.connectTimeoutMs > 0 ? { connectionTimeoutMillis: t.connectTimeoutMs } : {}),
    ...(t.keepAliveMs > 0 ? { keepAlive: true, keepAliveInitialDelayMillis: t.keepAliveMs } : {}),
  })
  // Note: without a listener, an idle connection dropped by the server crashes the process.
  pool.on('error', (error) => logger?.warn({ msg: 'idle database connection failed', error: error.message }))
  if (logger !== undefined) poolLoggers.set(pool, logger)
  if (t.statementTimeoutMs > 0) poolStatementTimeouts.set(pool, Math.trunc(t.statementTimeoutMs))
  // Note: the query timeout is ours (boundQueries), not node-postgres's query_timeout: one timer per pool, not per query.
  const deadlines = t.queryTimeoutMs > 0 ? createTimerList<WaitingQuery>({ dueOf: (query) => query.due, expire: (query) => query.expire() }) : undefined
  const bound = deadlines === undefined ? undefined : (client: pg.Client) => boundQueries(client, deadlines, t.queryTimeoutMs)
  if (bound !== undefined) pool.on('connect', bound)
  let reportSettings: (() => void) | undefined
  if (logger !== undefined && (t.statementTimeoutMs > 0 || genericPlans)) {
    const asked = { statement_timeout: t.statementTimeoutMs > 0 ? String(t.statementTimeoutMs) : undefined, plan_cache_mode: genericPlans ? 'force_generic_plan' : undefined }
    let reported = false
    reportSettings = () => {
      if (reported) return
      reported = true
      // Note: on the pool, after the connecting caller's own query: one client runs one query at a time.
      setImmediate(() => void reportDroppedSettings(pool, asked, t.queryTimeoutMs, logger))
    }
    pool.once('connect', reportSettings)
  }
  if (pipeline > 1) {
    const pipelined = pipelineQueries(pool, {
      connections: max,
      depth: pipeline,
      connectTimeoutMs: t.connectTimeoutMs,
      prepare: bound,
      onConnect: reportSettings,
      onConnectionError: (error) => logger?.warn({ msg: 'pipelined database connection failed', error: error.message }),
    })
    const endPool = pool.end.bind(pool)
    // Note: on the pool itself, so that every caller's pool.end() also ends the pipelined connections.
    ;(pool as { end: () => Promise<void> }).end = () => Promise.all([pipelined.end(), endPool()]).then(() => undefined)
  }
  const db = drizzle({ client: pool })
  releaseConnectionsOfFailedTransactions(db)
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

/**
 * `db.transaction(fn)` whose statements keep the pool's statement timeout through a pooler: its
 * first statement is `SET LOCAL statement_timeout`. PgBouncer drops the startup parameter
 * (`ignore_startup_parameters`), so without it a statement waiting on a lock would wait until the
 * client's query timeout, which closes the connection instead of cancelling; SET LOCAL lives in
 * the transaction, which a pooler in transaction mode passes on whole, and ends with it, so no
 * server connection keeps it for another client. Costs one round trip per transaction; none for
 * a pool without a statement timeout. Every write transaction of the product goes through it.
 */
export function boundedTransaction<T>(db: DbOrTx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  // Note: inside a transaction this is a savepoint; the outer transaction's bound holds.
  const timeoutMs = '$client' in db ? poolStatementTimeouts.get(db.$client) : undefined
  return db.transaction(async (tx) => {
    if (timeoutMs !== undefined) await tx.execute(sql.raw(`set local statement_timeout = ${timeoutMs}`))
    return fn(tx)
  })
}
