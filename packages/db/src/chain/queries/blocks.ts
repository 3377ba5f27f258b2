import { BaseError } from '@uncle-rpc/errors'
import { type HashedHeader, type Hex, headerFields } from '@uncle-rpc/chain'
import { and, count, desc, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import type { PgErrorFields } from '../../errors.js'
import { CanonicalBlockConflictError, DatabaseWriteError, UnknownNetworkError } from '../errors.js'
import { blocks, networks, uncles } from '../schema.js'
import { type UnnestField, unnestInsert } from './unnest.js'

/** A block and its uncles, in the order of the block's uncle list, each with the `size` geth reports (chain's uncleSize). */
export type BlockWithUncles = {
  /** Only these header fields are stored for a block (uncles are stored whole). */
  header: Pick<HashedHeader, 'hash' | 'number' | 'parentHash'>
  totalDifficulty?: bigint | undefined
  uncles: readonly (HashedHeader & { size: number })[]
}

export type InsertBlocksWithUnclesParameters = { network: string; blocks: readonly BlockWithUncles[] }
/** Rows actually written (rows already present are skipped). */
export type InsertBlocksWithUnclesReturnType = { blocks: number; uncles: number }

type BlockRow = { network: string; block: BlockWithUncles }
type UncleRow = { network: string; block: BlockWithUncles['header']; index: number; uncle: HashedHeader & { size: number } }

const blockFields: UnnestField<BlockRow>[] = [
  [blocks.network, (r) => r.network],
  [blocks.hash, (r) => r.block.header.hash],
  [blocks.number, (r) => r.block.header.number],
  [blocks.parentHash, (r) => r.block.header.parentHash],
  [blocks.uncleCount, (r) => r.block.uncles.length],
]

const uncleFields: UnnestField<UncleRow>[] = [
  [uncles.network, (r) => r.network],
  [uncles.blockHash, (r) => r.block.hash],
  [uncles.blockNumber, (r) => r.block.number],
  [uncles.index, (r) => r.index],
  [uncles.hash, (r) => r.uncle.hash],
  // Note: the header columns are named after the header fields (headerFields is their one list).
  ...headerFields.map(([name]): UnnestField<UncleRow> => [uncles[name], (r) => r.uncle[name]]),
  [uncles.size, (r) => r.uncle.size],
]

/**
 * Writes blocks and their uncles in one statement (all or nothing), skipping rows already
 * present, so a job may run any number of times. Callers verify hashes before writing; the
 * network must be registered ({@link UnknownNetworkError}). Throws {@link CanonicalBlockConflictError} if
 * another block holds a height, {@link DatabaseWriteError} for other failures.
 */
export async function insertBlocksWithUncles(
  db: DbOrTx,
  { network, blocks: items }: InsertBlocksWithUnclesParameters,
): Promise<InsertBlocksWithUnclesReturnType> {
  if (items.length === 0) return { blocks: 0, uncles: 0 }
  await expectRegisteredNetwork(db, network)
  const blockRows = items.map((block) => ({ network, block }))
  const uncleRows = items.flatMap(({ header, uncles }) =>
    uncles.map((uncle, index) => ({ network, block: header, index, uncle })),
  )
  // Note: one statement, so blocks never exist without their uncles; the uncles' foreign key is
  // checked at the end of the statement, when the blocks CTE has run.
  const statement = sql`with written_blocks as (${unnestInsert(blocks, blockFields, blockRows, [blocks.network, blocks.hash])} returning 1),
    written_uncles as (${unnestInsert(uncles, uncleFields, uncleRows, [uncles.network, uncles.blockHash, uncles.index])} returning 1)
    select (select count(*)::int from written_blocks) as blocks, (select count(*)::int from written_uncles) as uncles`
  try {
    const result = await db.execute<{ blocks: number; uncles: number }>(statement)
    const row = result.rows[0]
    return { blocks: row?.blocks ?? 0, uncles: row?.uncles ?? 0 }
  } catch (error) {
    throw writeError(network, error)
  }
}

/**
 * Throws {@link UnknownNetworkError} unless `network` is registered; inside a transaction, its
 * row stays locked (FOR KEY SHARE, as a foreign key check would) until the end.
 */
export async function expectRegisteredNetwork(db: DbOrTx, network: string): Promise<void> {
  // Note: once per write instead of a foreign key on blocks.network, whose per-row check cost
  // ~40% of COPY's CPU (migration 0006).
  const rows = await db.select({ name: networks.name }).from(networks).where(eq(networks.name, network)).for('key share')
  if (rows.length === 0) throw new UnknownNetworkError(network)
}

// Note: drizzle's error message holds the whole statement and its parameters, megabytes for a
// big batch; the error thrown here carries only the Postgres error.
export function writeError(network: string, error: unknown): BaseError {
  if (error instanceof BaseError) return error
  const pgError = ((error as { cause?: PgErrorFields }).cause ?? error) as PgErrorFields
  if (pgError.code === '23505' && pgError.constraint === 'blocks_canonical_number_key')
    return new CanonicalBlockConflictError(network, pgError)
  return new DatabaseWriteError(network, pgError)
}

/** Number of blocks stored for `network` (canonical or not). */
export async function countBlocks(db: DbOrTx, { network }: { network: string }): Promise<number> {
  const [row] = await db.select({ n: count() }).from(blocks).where(eq(blocks.network, network))
  return row?.n ?? 0
}

/** The highest canonical block stored for `network`, or null when there is none. */
export async function latestIndexedBlock(
  db: DbOrTx,
  { network }: { network: string },
): Promise<{ number: bigint; hash: Hex } | null> {
  const [row] = await db
    .select({ number: blocks.number, hash: blocks.hash })
    .from(blocks)
    .where(and(eq(blocks.network, network), eq(blocks.canonical, true)))
    .orderBy(desc(blocks.number))
    .limit(1)
  return row ?? null
}
