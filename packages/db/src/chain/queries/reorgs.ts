import type { Hex } from '@uncle-rpc/chain'
import { and, asc, between, count, desc, eq, gt, inArray, max, sql, sum } from 'drizzle-orm'
import type { DbOrTx, Tx } from '../../client.js'
import type { PgErrorFields } from '../../errors.js'
import { CanonicalBlockConflictError } from '../errors.js'
import { blocks, indexedRanges, reorgs } from '../schema.js'

// Reorg bookkeeping: which stored block is canonical at each height, the per-network write lock
// that keeps that consistent across processes, and the log of applied reorgs (the RPC's cache hint).

/** A stored canonical block, as much as linkage checks need. */
export type CanonicalBlockRef = { number: bigint; hash: Hex; parentHash: Hex }

/** The canonical blocks of `network` with numbers in `[from, to]`, sorted by number. */
export async function canonicalBlocks(
  db: DbOrTx,
  { network, from, to }: { network: string; from: bigint; to: bigint },
): Promise<CanonicalBlockRef[]> {
  if (from > to) return []
  return db
    .select({ number: blocks.number, hash: blocks.hash, parentHash: blocks.parentHash })
    .from(blocks)
    .where(and(eq(blocks.network, network), eq(blocks.canonical, true), between(blocks.number, from, to)))
    .orderBy(asc(blocks.number))
}

// Note: the two-key form of the advisory lock; the first key names this use ("uncl").
const writeLockClass = 0x756e636c

/**
 * Takes `network`'s block-write lock until the transaction ends: `shared` for ordinary writes
 * (they run side by side), `exclusive` for a reorg (it waits for them, and they for it).
 */
export async function lockNetworkWrites(
  tx: Tx,
  { network, mode }: { network: string; mode: 'shared' | 'exclusive' },
): Promise<void> {
  if (mode === 'shared') await tx.execute(sql`select pg_advisory_xact_lock_shared(${writeLockClass}, hashtext(${network}))`)
  else await tx.execute(sql`select pg_advisory_xact_lock(${writeLockClass}, hashtext(${network}))`)
}

/**
 * Sets `canonical` of the stored blocks with these hashes; returns how many rows changed.
 * Throws {@link CanonicalBlockConflictError} if that would make two blocks canonical at one height.
 */
export async function setBlocksCanonical(
  db: DbOrTx,
  { network, hashes, canonical }: { network: string; hashes: readonly Hex[]; canonical: boolean },
): Promise<number> {
  if (hashes.length === 0) return 0
  try {
    const rows = await db
      .update(blocks)
      .set({ canonical })
      .where(and(eq(blocks.network, network), inArray(blocks.hash, [...hashes]), eq(blocks.canonical, !canonical)))
      .returning({ number: blocks.number })
    return rows.length
  } catch (error) {
    const pgError = ((error as { cause?: PgErrorFields }).cause ?? error) as PgErrorFields
    if (pgError.code === '23505' && pgError.constraint === 'blocks_canonical_number_key')
      throw new CanonicalBlockConflictError(network, pgError)
    throw error
  }
}

/**
 * Removes `[from, to]` from `network`'s indexed ranges, splitting rows that stick out, for
 * heights that no longer have a canonical block. Call it under the exclusive write lock.
 */
export async function unmarkRangeIndexed(
  db: DbOrTx,
  { network, from, to }: { network: string; from: bigint; to: bigint },
): Promise<void> {
  const r = indexedRanges
  const columns = sql.join([r.network, r.fromBlock, r.toBlock].map((c) => sql.identifier(c.name)), sql`, `)
  await db.execute(sql`
    with removed as (
      delete from ${r} where ${and(eq(r.network, network), sql`${r.fromBlock} <= ${to}`, sql`${r.toBlock} >= ${from}`)}
      returning from_block, to_block
    )
    insert into ${r} (${columns})
    select ${network}, from_block, ${from}::bigint - 1 from removed where from_block < ${from}
    union all
    select ${network}, ${to}::bigint + 1, to_block from removed where to_block > ${to}
    on conflict do nothing`)
}

/** Blocks of `network` that a reorg replaced (kept, not canonical), sorted by number. */
export async function replacedBlocks(
  db: DbOrTx,
  { network }: { network: string },
): Promise<{ number: bigint; hash: Hex; uncleCount: number }[]> {
  return db
    .select({ number: blocks.number, hash: blocks.hash, uncleCount: blocks.uncleCount })
    .from(blocks)
    .where(and(eq(blocks.network, network), eq(blocks.canonical, false)))
    .orderBy(asc(blocks.number), asc(blocks.hash))
}

/** One applied reorg: heights `[fromBlock, toBlock]` got other canonical blocks. */
export type ReorgEvent = {
  id: bigint
  network: string
  fromBlock: bigint
  toBlock: bigint
  depth: number
  oldHash: Hex
  newHash: Hex | null
  detectedAt: Date
}

export type RecordReorgParameters = Omit<ReorgEvent, 'id' | 'detectedAt'>

/** Appends a reorg to the log (in the transaction that applied it); returns its id. */
export async function recordReorg(db: DbOrTx, event: RecordReorgParameters): Promise<bigint> {
  const [row] = await db.insert(reorgs).values(event).returning({ id: reorgs.id })
  return row?.id ?? 0n
}

/**
 * The id of the newest reorg (of `network`, or of any network), 0 when there was none: an
 * index-only lookup that a cache can poll every second to learn whether to look further.
 */
export async function latestReorgId(db: DbOrTx, { network }: { network?: string } = {}): Promise<bigint> {
  const [row] = await db
    .select({ id: reorgs.id })
    .from(reorgs)
    .where(network === undefined ? undefined : eq(reorgs.network, network))
    .orderBy(desc(reorgs.id))
    .limit(1)
  return row?.id ?? 0n
}

/** Reorgs with id greater than `afterId` (optionally of one network), oldest first, at most `limit`. */
export async function reorgsSince(
  db: DbOrTx,
  { afterId, network, limit = 1000 }: { afterId: bigint; network?: string; limit?: number },
): Promise<ReorgEvent[]> {
  return db
    .select()
    .from(reorgs)
    .where(and(gt(reorgs.id, afterId), network === undefined ? undefined : eq(reorgs.network, network)))
    .orderBy(asc(reorgs.id))
    .limit(limit)
}

/** Totals of `network`'s reorg log: how many, the deepest, blocks replaced (summed depths) and the last one's time. */
export async function reorgStats(
  db: DbOrTx,
  { network }: { network: string },
): Promise<{ reorgs: number; deepest: number; replaced: number; last: Date | null }> {
  const [row] = await db
    .select({ reorgs: count(), deepest: max(reorgs.depth), replaced: sum(reorgs.depth), last: max(reorgs.detectedAt) })
    .from(reorgs)
    .where(eq(reorgs.network, network))
  return {
    reorgs: row?.reorgs ?? 0,
    deepest: row?.deepest ?? 0,
    replaced: Number(row?.replaced ?? 0),
    last: row?.last ?? null,
  }
}
