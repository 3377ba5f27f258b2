import type { Hex } from '@uncle-rpc/chain'
import { and, eq, sql } from 'drizzle-orm'
import type { PgColumn } from 'drizzle-orm/pg-core'
import { type DbOrTx, isLostStatementError, namedStatements, useUnnamedStatements } from '../../client.js'
import { blocks } from '../schema.js'

const bound = (column: PgColumn, name: string) => sql.param(sql.placeholder(name), column)

function prepareBlockKnown(db: DbOrTx) {
  return db
    .select({ one: sql<number>`1` })
    .from(blocks)
    .where(and(eq(blocks.network, bound(blocks.network, 'network')), eq(blocks.hash, bound(blocks.hash, 'blockHash'))))
    .limit(1)
    .prepare('uncle_rpc_block_known')
}

/** The same read as an unnamed statement, for a pool whose named statements do not survive (PgBouncer in transaction mode). */
async function blockKnownUnnamed(db: DbOrTx, { network, blockHash }: { network: string; blockHash: Hex }): Promise<boolean> {
  const rows = await db.select({ one: sql<number>`1` }).from(blocks).where(and(eq(blocks.network, network), eq(blocks.hash, blockHash))).limit(1)
  return rows.length > 0
}

// Note: one named prepared statement per database object, as getUncle (planned once per connection).
const prepared = new WeakMap<DbOrTx, ReturnType<typeof prepareBlockKnown>>()

/**
 * Whether the block with this hash is indexed (canonical or not). The RPC service asks after a
 * null uncle lookup: a known block makes the null authoritative, an unknown one does not.
 */
export async function blockKnown(db: DbOrTx, { network, blockHash }: { network: string; blockHash: Hex }): Promise<boolean> {
  const pool = '$client' in db ? db.$client : undefined
  if (pool !== undefined && !namedStatements(pool)) return blockKnownUnnamed(db, { network, blockHash })
  try {
    return await blockKnownNamed(db, { network, blockHash })
  } catch (error) {
    // Note: as getUncleAnswers: the pooler lent a server connection without the statement; sent again unnamed, and every later one.
    if (pool === undefined || !isLostStatementError(error)) throw error
    useUnnamedStatements(pool, error)
    return blockKnownUnnamed(db, { network, blockHash })
  }
}

async function blockKnownNamed(db: DbOrTx, { network, blockHash }: { network: string; blockHash: Hex }): Promise<boolean> {
  let query = prepared.get(db)
  if (!query) {
    query = prepareBlockKnown(db)
    prepared.set(db, query)
  }
  const rows = await query.execute({ network, blockHash })
  return rows.length > 0
}
