import { sql } from 'drizzle-orm'
import type pg from 'pg'
import type { DbOrTx } from '../../client.js'

// Readers that keep the set of blocks with uncles in memory (the RPC's null filter) follow the
// writes through one notification per indexed range, sent in the writing transaction, so it is
// delivered at commit and never for a rolled-back write.

/** The LISTEN/NOTIFY channel of indexed ranges: payload `<network> <from> <to>`. */
export const rangeIndexedChannel = 'uncle_rpc_range_indexed'

/** Sends the notification of `[from, to]` of `network` being indexed, inside `db`'s transaction. */
export async function notifyRangeIndexed(db: DbOrTx, { network, from, to }: { network: string; from: bigint; to: bigint }): Promise<void> {
  await db.execute(sql`select pg_notify(${rangeIndexedChannel}, ${`${network} ${from} ${to}`})`)
}

/** The range of a notification's payload; null for anything else. */
export function parseRangeIndexed(payload: string | undefined): { network: string; from: bigint; to: bigint } | null {
  const match = /^(\S+) (\d+) (\d+)$/.exec(payload ?? '')
  if (match === null) return null
  return { network: match[1] as string, from: BigInt(match[2] as string), to: BigInt(match[3] as string) }
}

/**
 * The first 8 bytes of the hash of every block with uncles in `[from, to]` of `network`
 * (concatenated; a block counted once per uncle is fine for a set), by the (network, block_number)
 * index. One bytea instead of a row per block: 8 bytes each on the wire and in memory.
 */
export async function uncleBlockPrefixes(
  client: Pick<pg.ClientBase, 'query'>,
  { network, from, to }: { network: string; from: bigint; to: bigint },
): Promise<Uint8Array> {
  const result = await client.query<{ prefixes: Buffer | null }>(
    `select string_agg(substr(block_hash, 1, 8), ''::bytea) as prefixes from uncles
     where network = $1 and block_number between $2 and $3 and index = 0`,
    [network, from.toString(), to.toString()],
  )
  return result.rows[0]?.prefixes ?? new Uint8Array(0)
}

/** The lowest and highest block number with uncles of `network`; null when none. */
export async function uncleBlockSpan(client: Pick<pg.ClientBase, 'query'>, network: string): Promise<{ from: bigint; to: bigint } | null> {
  const result = await client.query<{ low: string | null; high: string | null }>(
    'select min(block_number)::text as low, max(block_number)::text as high from uncles where network = $1',
    [network],
  )
  const row = result.rows[0]
  return row?.low == null || row.high == null ? null : { from: BigInt(row.low), to: BigInt(row.high) }
}
