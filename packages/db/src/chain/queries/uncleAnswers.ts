import { type Hex, toQuantity, type ToRpcUncleOptions } from '@uncle-rpc/chain'
import { getTableColumns, getTableName } from 'drizzle-orm'
import { type Db, isLostStatementError, namedStatements, useUnnamedStatements } from '../../client.js'
import { toArrayLiteral } from '../../columns.js'
import { uncles } from '../schema.js'
import { bigQuantityPattern, totalDifficultyNullText } from '../uncleAnswerSql.js'
import { storedUncleIndex } from './uncles.js'

/** An uncle's `eth_getUncleByBlockHashAndIndex` result as JSON text, and the number of the block that includes it. */
export type UncleAnswer = { json: string; blockNumber: bigint }

export type GetUncleAnswersParameters = {
  network: string
  keys: readonly { blockHash: Hex; index: number }[]
  /** As rpcUncleJson's option. */
  totalDifficulty: ToRpcUncleOptions['totalDifficulty']
}

const columns = getTableColumns(uncles)

// Note: the stored answer is the `null` form; the `omit` form cuts its one totalDifficulty key out.
// Each key's position comes back with its row (`with ordinality`), so rows are matched to keys
// without a string key per row; Postgres plans the join as a nested loop of primary-key lookups,
// one per key, whatever the number of keys.
function answerSql(options: ToRpcUncleOptions): string {
  const answer = `u.${columns.answer.name}`
  const text = options.totalDifficulty === 'null' ? answer : `replace(${answer}, '${totalDifficultyNullText}', '')`
  return `select k.n::int4, ${text}, u.${columns.blockNumber.name}::text
from unnest($2::bytea[], $3::smallint[]) with ordinality as k(block_hash, index, n)
join ${getTableName(uncles)} u on u.${columns.network.name} = $1 and u.${columns.blockHash.name} = k.block_hash and u.${columns.index.name} = k.index`
}

const statements = {
  null: { name: 'uncle_rpc_uncle_answers', text: answerSql({ totalDifficulty: 'null' }) },
  omit: { name: 'uncle_rpc_uncle_answers_omit', text: answerSql({ totalDifficulty: 'omit' }) },
}

/**
 * Many uncles of one network as their answers' JSON text, in one statement (a named prepared
 * statement, planned once per connection, or an unnamed one where named statements do not survive
 * between transactions (PgBouncer in transaction mode); rows as arrays). Returns one entry per key, in order;
 * null where no row matches. Note: the text is the same as rpcUncleJson's for the stored header;
 * stored with the uncle (its `answer` column, written by Postgres at insert), it costs the client
 * one string per uncle instead of a field each, a header object, bigints and the text, and
 * Postgres no more than reading the columns (`npm run bench:uncle-reads`, in one run: client CPU
 * 8.7 → 4.3 µs per uncle, Postgres 6.0 → 4.3 µs; written per read, Postgres's was 1.23× the columns').
 */
export async function getUncleAnswers(db: Db, { network, keys, totalDifficulty }: GetUncleAnswersParameters): Promise<(UncleAnswer | null)[]> {
  const found: (UncleAnswer | null)[] = keys.map(() => null)
  // Note: an index no row can have is not sent (the array takes smallints only); it stays null.
  const asked: number[] = []
  for (let i = 0; i < keys.length; i++) if (storedUncleIndex(keys[i]!.index) !== null) asked.push(i)
  if (asked.length === 0) return found
  const hashes = toArrayLiteral('bytea', asked.map((i) => keys[i]!.blockHash))
  const indexes = toArrayLiteral('smallint', asked.map((i) => keys[i]!.index))
  const pool = db.$client
  const statement = statements[totalDifficulty]
  const unnamed = { text: statement.text, values: [network, hashes, indexes], rowMode: 'array' as const }
  let rows: [number, string, string][]
  if (!namedStatements(pool)) rows = (await pool.query<[number, string, string]>(unnamed)).rows
  else
    try {
      rows = (await pool.query<[number, string, string]>({ ...unnamed, name: statement.name })).rows
    } catch (error) {
      // Note: a pooler in transaction mode lends another server connection, which lacks the
      // statement or has it from another client; the read is sent again unnamed, and so is every later one.
      if (!isLostStatementError(error)) throw error
      useUnnamedStatements(pool, error)
      rows = (await pool.query<[number, string, string]>(unnamed)).rows
    }
  for (const [n, text, blockNumber] of rows) {
    // Note: a one-character search (23 ns on a 1.4 KB answer; '"#' took 480 ns).
    const json = text.includes('#') ? text.replace(bigQuantityPattern, (_, digits: string) => `"${toQuantity(BigInt(digits))}"`) : text
    found[asked[n - 1]!] = { json, blockNumber: BigInt(blockNumber) }
  }
  return found
}
