import { sql } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { blocks, uncles } from '../schema.js'

export type TableChecksums = { blocks: number; uncles: number; blocksMd5: string; unclesMd5: string }

/**
 * Row counts and an md5 over every block hash and every (block hash, index, uncle hash) of a
 * network, in key order: two indexes of the same chain have equal checksums, whatever order
 * or how many times their rows were written.
 */
export async function tableChecksums(db: DbOrTx, { network }: { network: string }): Promise<TableChecksums> {
  const result = await db.execute<{ blocks: number; uncles: number; blocks_md5: string | null; uncles_md5: string | null }>(sql`
    select
      (select count(*)::int from ${blocks} where ${blocks.network} = ${network}) as blocks,
      (select count(*)::int from ${uncles} where ${uncles.network} = ${network}) as uncles,
      (select md5(string_agg(encode(${blocks.hash}, 'hex'), ',' order by ${blocks.hash}))
         from ${blocks} where ${blocks.network} = ${network}) as blocks_md5,
      (select md5(string_agg(encode(${uncles.blockHash}, 'hex') || ':' || ${uncles.index} || ':' || encode(${uncles.hash}, 'hex'),
                             ',' order by ${uncles.blockHash}, ${uncles.index}))
         from ${uncles} where ${uncles.network} = ${network}) as uncles_md5`)
  const row = result.rows[0]
  return {
    blocks: row?.blocks ?? 0,
    uncles: row?.uncles ?? 0,
    blocksMd5: row?.blocks_md5 ?? '',
    unclesMd5: row?.uncles_md5 ?? '',
  }
}
