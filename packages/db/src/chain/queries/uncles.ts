import { type HashedHeader, type Hex, headerFields } from '@uncle-rpc/chain'
import { and, count, eq, getTableColumns, sql } from 'drizzle-orm'
import { byteaHexSql, numericToBigint, toArrayLiteral } from '../../columns.js'
import type { PgColumn } from 'drizzle-orm/pg-core'
import type { DbOrTx } from '../../client.js'
import { uncles } from '../schema.js'

export type GetUncleParameters = { network: string; blockHash: Hex; index: number }

/** The largest uncle index a row can hold (`index` is a smallint). */
const maxStoredIndex = 32767

/**
 * A requested uncle index (a JSON-RPC quantity, decoded to bigint) as the smallint the uncles
 * table keys it by; null when no row can have it (such a request answers null, as geth's does).
 */
export function storedUncleIndex(index: bigint | number): number | null {
  return index >= 0 && index <= maxStoredIndex && (typeof index === 'bigint' || Number.isInteger(index)) ? Number(index) : null
}
/** The stored uncle header with its hash, the `size` geth reports and the number of the block that includes it. */
export type GetUncleReturnType = (HashedHeader & { size: number; blockNumber: bigint }) | null

// Note: drizzle encodes a placeholder's value through the column (bytea: Hex → bytes) only
// when the placeholder is wrapped in a Param bound to that column.
const bound = (column: PgColumn, name: string) => sql.param(sql.placeholder(name), column)

type RawUncleRow = Record<string, string | number | null>

/**
 * A raw row of getUncles (fields named as the header's; bytea as lowercase `0x…` text, numeric
 * and int8 as decimal text) as the header with its size and block number.
 */
function toUncle(row: RawUncleRow): NonNullable<GetUncleReturnType> {
  const uncle: Record<string, unknown> = { hash: row.hash }
  for (const [name, kind] of headerFields) {
    const value = row[name]
    if (value !== null && value !== undefined) uncle[name] = kind === 'quantity' ? numericToBigint(String(value)) : value
  }
  uncle.size = row.size
  uncle.blockNumber = numericToBigint(row.blockNumber as string)
  return uncle as NonNullable<GetUncleReturnType>
}

export type GetUnclesParameters = { network: string; keys: readonly { blockHash: Hex; index: number }[] }

/**
 * The selected columns of getUncles: every column but the key, named as the header's fields,
 * bytea ones as `'0x' || encode(…, 'hex')` text. Note: Postgres writes bytea as hex text on the
 * wire anyway; asking for the text itself skips node-postgres's hex → Buffer and the column's
 * Buffer → hex on every field of every row.
 */
function unclesColumnsAsText() {
  // Note: the header's own columns; the stored answer is the cold read's (uncleAnswers.ts).
  const { network: _network, answer: _answer, ...columns } = getTableColumns(uncles)
  return Object.fromEntries(
    Object.entries(columns).map(([name, column]) => [
      name,
      (column.getSQLType() === 'bytea' ? byteaHexSql(column) : sql`${column}`).as(name),
    ]),
  )
}

function prepareGetUncles(db: DbOrTx) {
  // Note: `(block_hash, index) in (unnest …)`: Postgres plans it as a nested loop of primary-key
  // lookups, one per pair, whatever the number of pairs; one statement shape, planned once per connection.
  const query = db
    .select(unclesColumnsAsText())
    .from(uncles)
    .where(
      and(
        eq(uncles.network, bound(uncles.network, 'network')),
        sql`(${uncles.blockHash}, ${uncles.index}) in (select * from unnest(${sql.placeholder('hashes')}::bytea[], ${sql.placeholder('indexes')}::smallint[]))`,
      ),
    )
    .prepare('uncle_rpc_get_uncles')
  // Note: node-postgres's prepared query returns the driver's rows from all() as they came; drizzle's
  // per-field row mapping (execute()) was half of the client's CPU per row, measured with 64-key batches.
  return query as unknown as { all(values: Record<string, unknown>): Promise<RawUncleRow[]> }
}

// Note: one prepared query per database object, built once: a named statement is planned once
// per connection, which doubles lookups/s (measured with pgbench and the pg pool), and drizzle skips rebuilding the SQL.
const preparedMany = new WeakMap<DbOrTx, ReturnType<typeof prepareGetUncles>>()

/**
 * Many uncles of one network in one statement (the batched form of getUncle: lookups that arrive
 * together cost one round trip). Returns one entry per key, in order; null where no row matches.
 */
export async function getUncles(db: DbOrTx, { network, keys }: GetUnclesParameters): Promise<GetUncleReturnType[]> {
  const wanted = keys.map((key) => (storedUncleIndex(key.index) === null ? null : key))
  const asked = wanted.filter((key) => key !== null)
  if (asked.length === 0) return keys.map(() => null)
  let query = preparedMany.get(db)
  if (!query) {
    query = prepareGetUncles(db)
    preparedMany.set(db, query)
  }
  // Note: the array literals are built from the hex itself (node-postgres would take Buffers and hex them again).
  const hashes = toArrayLiteral('bytea', asked.map((key) => key.blockHash))
  const rows = await query.all({ network, hashes, indexes: toArrayLiteral('smallint', asked.map((key) => key.index)) })
  const found = new Map<string, NonNullable<GetUncleReturnType>>()
  for (const row of rows) found.set(row.blockHash + '/' + row.index, toUncle(row))
  return wanted.map((key) => (key === null ? null : (found.get(key.blockHash.toLowerCase() + '/' + key.index) ?? null)))
}

/**
 * The uncle at `index` in block `blockHash`: the lookup behind eth_getUncleByBlockHashAndIndex
 * ({@link getUncles} with one key). Null when the block or index is unknown.
 */
export async function getUncle(db: DbOrTx, { network, blockHash, index }: GetUncleParameters): Promise<GetUncleReturnType> {
  const [uncle] = await getUncles(db, { network, keys: [{ blockHash, index }] })
  return uncle ?? null
}


/** Number of uncles stored for `network`. */
export async function countUncles(db: DbOrTx, { network }: { network: string }): Promise<number> {
  const [row] = await db.select({ n: count() }).from(uncles).where(eq(uncles.network, network))
  return row?.n ?? 0
}
