import type { Hex } from '@uncle-rpc/chain'
import { and, desc, eq } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { blocks, uncles } from '../schema.js'

/** The most recently included uncle of a network's canonical chain: a ready example for a query. */
export async function latestUncle(db: DbOrTx, { network }: { network: string }): Promise<{ blockHash: Hex; index: number; blockNumber: bigint } | null> {
  const rows = await db
    .select({ blockHash: uncles.blockHash, index: uncles.index, blockNumber: uncles.blockNumber })
    .from(uncles)
    .innerJoin(blocks, and(eq(blocks.network, uncles.network), eq(blocks.hash, uncles.blockHash)))
    .where(and(eq(uncles.network, network), eq(blocks.canonical, true)))
    .orderBy(desc(uncles.blockNumber), uncles.index)
    .limit(1)
  const row = rows[0]
  return row ? { blockHash: row.blockHash, index: row.index, blockNumber: row.blockNumber } : null
}
