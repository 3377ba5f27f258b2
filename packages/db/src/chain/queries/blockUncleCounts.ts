import type { Hex } from '@uncle-rpc/chain'
import type { Db } from '../../client.js'
import { byteaToHex, hexToBytea } from '../../columns.js'

/** An indexed block as the uncle family reads it: its hash, number and how many uncles it includes. */
export type BlockUncleCount = { hash: Hex; number: bigint; uncleCount: number }

// Named prepared statements (planned once per connection, rows as arrays), as getUncleAnswers.
const byHash = {
  name: 'uncle_rpc_block_uncle_count',
  text: 'select hash, number::text, uncle_count from blocks where network = $1 and hash = $2',
}
const byNumber = {
  name: 'uncle_rpc_canonical_block_uncle_count',
  text: 'select hash, number::text, uncle_count from blocks where network = $1 and number = $2 and canonical',
}

function row(rows: [Buffer, string, number][]): BlockUncleCount | null {
  const first = rows[0]
  return first === undefined ? null : { hash: byteaToHex(first[0]), number: BigInt(first[1]), uncleCount: first[2] }
}

/**
 * The block with this hash (canonical or replaced: geth answers any block it holds by hash), by
 * the primary key; null when it is not indexed. eth_getUncleCountByBlockHash.
 */
export async function blockUncleCountByHash(db: Db, { network, blockHash }: { network: string; blockHash: Hex }): Promise<BlockUncleCount | null> {
  const { rows } = await db.$client.query<[Buffer, string, number]>({ ...byHash, values: [network, hexToBytea(blockHash)], rowMode: 'array' })
  return row(rows)
}

/**
 * The canonical block at this height (after a reorg: the block that replaced the old one), by the
 * partial unique index on canonical heights; null when the height is not indexed. The by-number uncle methods.
 */
export async function canonicalBlockUncleCount(db: Db, { network, number }: { network: string; number: bigint }): Promise<BlockUncleCount | null> {
  const { rows } = await db.$client.query<[Buffer, string, number]>({ ...byNumber, values: [network, number.toString()], rowMode: 'array' })
  return row(rows)
}
