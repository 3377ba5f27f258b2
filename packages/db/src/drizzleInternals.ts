import { sql } from 'drizzle-orm'
import { type NodePgDatabase, NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres'
import type pg from 'pg'

// Note: the types as client.ts names them, derived here too (client.ts imports this file).
type Db = NodePgDatabase
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

// Every use of drizzle-orm's non-public parts, in one place (drizzleInternals.test.ts fails when an
// upgrade changes them): the pooled connection a transaction runs on, and the transaction itself.

/** What a node-postgres session of drizzle keeps (not public API). */
type SessionInternals = {
  client: pg.Pool | pg.PoolClient
  dialect: ConstructorParameters<typeof NodePgSession>[1]
  schema: ConstructorParameters<typeof NodePgSession>[2]
  options: ConstructorParameters<typeof NodePgSession>[3]
  transaction: Db['transaction']
}

/** What a transaction of drizzle has beyond its types (not public API): the SQL of a transaction config (isolation level, access mode). */
type TransactionInternals = { getTransactionConfigSQL(config: NonNullable<Parameters<Db['transaction']>[1]>): ReturnType<typeof sql> }

function sessionOf(dbOrTx: Db | Tx): SessionInternals {
  return (dbOrTx as unknown as { session: SessionInternals }).session
}

/** The raw node-postgres connection of a transaction (COPY needs it). */
export function transactionClient(tx: Tx): pg.PoolClient {
  return sessionOf(tx).client as pg.PoolClient
}

/**
 * Makes `db.transaction` give its pooled connection back on every path. drizzle-orm 0.45 sends
 * `begin` before its try/finally, so a `begin` that fails (a query timeout while Postgres hangs)
 * never releases the connection: each such failure takes one connection out of the pool for good,
 * and after pool-size failures every query of the process waits for a connection that never comes.
 * Here a connection whose `begin` or `rollback` failed is released with the error (the pool
 * destroys it: its state is unknown); otherwise it is released as drizzle does.
 */
export function releaseConnectionsOfFailedTransactions(db: Db): void {
  const session = sessionOf(db)
  const pool = session.client as pg.Pool
  const transaction = async <T>(run: (tx: Tx) => Promise<T>, config?: Parameters<Db['transaction']>[1]): Promise<T> => {
    const client = await pool.connect()
    const txSession = new NodePgSession(client, session.dialect, session.schema, session.options)
    const tx = new NodePgTransaction(session.dialect, txSession, session.schema)
    let broken: Error | undefined
    // Note: node-postgres emits 'error' on a client whose connection ends unexpectedly, and the pool
    // listens only to idle ones: without a listener here a cut connection crashed the process. The
    // running query fails with the same error; the connection is released with it (destroyed).
    const lost = (error: Error) => {
      broken ??= error
    }
    client.on('error', lost)
    try {
      try {
        const settings = config ? sql` ${(tx as unknown as TransactionInternals).getTransactionConfigSQL(config)}` : undefined
        await tx.execute(sql`begin${settings}`)
      } catch (error) {
        broken = error as Error
        throw error
      }
      try {
        const result = await run(tx as unknown as Tx)
        await tx.execute(sql`commit`)
        return result
      } catch (error) {
        await tx.execute(sql`rollback`).catch((rollbackError: unknown) => (broken = rollbackError as Error))
        throw error
      }
    } finally {
      client.release(broken)
      // Note: a destroyed connection keeps the listener (its socket may still report an error).
      if (broken === undefined) client.off('error', lost)
    }
  }
  session.transaction = transaction as Db['transaction']
}
