import { type BlockRange, gapsOf } from '@uncle-rpc/chain'
import { and, eq, gte, lte, type SQL, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { indexedRanges } from '../schema.js'
import { notifyRangeIndexed } from './uncleBlocks.js'

export type { BlockRange }

/**
 * Records that every block of `[from, to]` (and its uncles) is written, and notifies listeners of
 * rangeIndexedChannel (delivered at commit). Call it in the transaction that wrote them, so a
 * range is never marked without its rows. Idempotent.
 */
export async function markRangeIndexed(db: DbOrTx, { network, from, to }: BlockRange & { network: string }): Promise<void> {
  await db.insert(indexedRanges).values({ network, fromBlock: from, toBlock: to }).onConflictDoNothing()
  await notifyRangeIndexed(db, { network, from, to })
}

/**
 * Gaps-and-islands over the range rows matching `where`: overlapping and touching rows merged,
 * as a subquery with columns `from_block`, `to_block` and `completed_at` (the island's earliest).
 */
function mergedRanges(where: SQL | undefined): SQL {
  const { fromBlock, toBlock, completedAt } = indexedRanges
  // Note: a row starts a new island when it begins after every earlier row ends (+1: touching
  // ranges merge). The running count of island starts numbers the islands.
  return sql`
    select min(from_block) as from_block, max(to_block) as to_block, min(completed_at) as completed_at
    from (
      select from_block, to_block, completed_at, sum(case when starts then 1 else 0 end) over (order by from_block, to_block) as island
      from (
        select ${fromBlock} as from_block, ${toBlock} as to_block, ${completedAt} as completed_at,
               coalesce(${fromBlock} > max(${toBlock}) over (order by ${fromBlock}, ${toBlock} rows between unbounded preceding and 1 preceding) + 1, true) as starts
        from ${indexedRanges}
        where ${where}
      ) as marked
    ) as numbered
    group by island`
}

async function selectMerged(db: DbOrTx, where: SQL | undefined): Promise<BlockRange[]> {
  const result = await db.execute<{ from: string; to: string }>(
    sql`select from_block::text as "from", to_block::text as "to" from (${mergedRanges(where)}) as merged order by from_block`,
  )
  return result.rows.map((r) => ({ from: BigInt(r.from), to: BigInt(r.to) }))
}

/** The indexed ranges of `network`, merged (overlapping or touching rows become one) and sorted by `from`. */
export async function listIndexedRanges(db: DbOrTx, { network }: { network: string }): Promise<BlockRange[]> {
  return selectMerged(db, eq(indexedRanges.network, network))
}

/** The parts of `[from, to]` not covered by indexed ranges of `network`, sorted. */
export async function findGaps(db: DbOrTx, { network, from, to }: BlockRange & { network: string }): Promise<BlockRange[]> {
  if (from > to) return []
  const covered = await selectMerged(
    db,
    and(eq(indexedRanges.network, network), gte(indexedRanges.toBlock, from), lte(indexedRanges.fromBlock, to)),
  )
  return gapsOf({ from, to, indexed: covered })
}

/**
 * Rewrites `network`'s range rows in merged form, keeping the table small while the indexer
 * follows the head. One statement, one snapshot: rows other writers commit meanwhile are kept,
 * so coverage is never lost, and concurrent compactions are harmless.
 */
export async function compactIndexedRanges(
  db: DbOrTx,
  { network }: { network: string },
): Promise<{ deleted: number; inserted: number }> {
  const r = indexedRanges
  const same = (alias: string) =>
    sql`${sql.identifier(alias)}.from_block = ${r.fromBlock} and ${sql.identifier(alias)}.to_block = ${r.toBlock}`
  // Note: rows that already are whole islands are neither deleted nor re-inserted. A merged row
  // keeps its earliest completion, so it never counts as blocks indexed just now (blocksIndexedSince).
  const result = await db.execute<{ deleted: number; inserted: number }>(sql`
    with merged as (${mergedRanges(eq(r.network, network))}),
    deleted as (
      delete from ${r} where ${eq(r.network, network)} and not exists (select 1 from merged where ${same('merged')})
      returning 1
    ),
    inserted as (
      insert into ${r} (${sql.identifier(r.network.name)}, ${sql.identifier(r.fromBlock.name)}, ${sql.identifier(r.toBlock.name)}, ${sql.identifier(r.completedAt.name)})
      select ${network}, from_block, to_block, completed_at from merged as m
      where not exists (select 1 from ${r} where ${eq(r.network, network)} and ${same('m')})
      on conflict do nothing
      returning 1
    )
    select (select count(*)::int from deleted) as deleted, (select count(*)::int from inserted) as inserted`)
  const row = result.rows[0]
  return { deleted: row?.deleted ?? 0, inserted: row?.inserted ?? 0 }
}

/**
 * Blocks of `network` whose ranges were marked indexed in the last `seconds` (by the database's
 * clock): the indexing rate as it is, however the work is split into jobs or processes.
 */
export async function blocksIndexedSince(db: DbOrTx, { network, seconds }: { network: string; seconds: number }): Promise<bigint> {
  const r = indexedRanges
  const result = await db.execute<{ blocks: string }>(
    sql`select coalesce(sum(${r.toBlock} - ${r.fromBlock} + 1), 0)::text as blocks from ${r}
        where ${eq(r.network, network)} and ${r.completedAt} > now() - make_interval(secs => ${seconds})`,
  )
  return BigInt(result.rows[0]?.blocks ?? '0')
}
