import { getTableColumns, type SQL, sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  check,
  foreignKey,
  index,
  integer,
  pgTable,
  pgView,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { bytea, byteaHexSql, uint256 } from '../columns.js'
import { type AnswerColumn, uncleAnswerSql } from './uncleAnswerSql.js'

// The chain index: networks, blocks, uncles, indexed ranges, reorgs, era1 refusals and the
// database's identity. The indexer writes it, the RPC service reads it. With accounts/schema.ts,
// the source of truth for the database: `npm run db:generate` turns changes into a new file in
// /migrations; applied migrations are never edited.

/** Networks the indexer has registered. A network's chain id never changes once written. */
export const networks = pgTable('networks', {
  name: text('name').primaryKey(),
  chainId: bigint('chain_id', { mode: 'bigint' }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})

/**
 * Indexed blocks: only what the RPC and the indexer use (is this hash indexed, how many uncles,
 * which block is canonical at a height and what it links to). The rest of a block header is not
 * kept: every byte here is paid 15.5 million times on mainnet.
 */
export const blocks = pgTable(
  'blocks',
  {
    // Note: a registered network (`networks.name`), checked once per write under FOR KEY SHARE
    // (expectRegisteredNetwork), not by a foreign key: its per-row check cost ~40% of COPY's CPU.
    network: text('network').notNull(),
    hash: bytea('hash').notNull(),
    number: bigint('number', { mode: 'bigint' }).notNull(),
    parentHash: bytea('parent_hash').notNull(),
    uncleCount: smallint('uncle_count').notNull(),
    /** False once a reorg replaced the block; at most one canonical block per height. */
    canonical: boolean('canonical').notNull().default(true),
  },
  (t) => [
    primaryKey({ columns: [t.network, t.hash] }),
    uniqueIndex('blocks_canonical_number_key').on(t.network, t.number).where(sql`${t.canonical}`),
  ],
)

/**
 * Uncle headers, one row per (network, including block hash, index): the key of
 * eth_getUncleByBlockHashAndIndex. Every header field has its own column, so the RPC answer is
 * rebuilt exactly; the fork fields are null when the header does not have them.
 */
export const uncles = pgTable(
  'uncles',
  {
    network: text('network').notNull(),
    blockHash: bytea('block_hash').notNull(),
    /** Number of the including block (not the uncle's own `number`). */
    blockNumber: bigint('block_number', { mode: 'bigint' }).notNull(),
    index: smallint('index').notNull(),
    hash: bytea('hash').notNull(),
    parentHash: bytea('parent_hash').notNull(),
    sha3Uncles: bytea('sha3_uncles').notNull(),
    miner: bytea('miner').notNull(),
    stateRoot: bytea('state_root').notNull(),
    transactionsRoot: bytea('transactions_root').notNull(),
    receiptsRoot: bytea('receipts_root').notNull(),
    logsBloom: bytea('logs_bloom').notNull(),
    difficulty: uint256('difficulty').notNull(),
    number: bigint('number', { mode: 'bigint' }).notNull(),
    gasLimit: uint256('gas_limit').notNull(),
    gasUsed: uint256('gas_used').notNull(),
    timestamp: uint256('timestamp').notNull(),
    extraData: bytea('extra_data').notNull(),
    mixHash: bytea('mix_hash').notNull(),
    nonce: bytea('nonce').notNull(),
    baseFeePerGas: uint256('base_fee_per_gas'),
    withdrawalsRoot: bytea('withdrawals_root'),
    blobGasUsed: uint256('blob_gas_used'),
    excessBlobGas: uint256('excess_blob_gas'),
    parentBeaconBlockRoot: bytea('parent_beacon_block_root'),
    requestsHash: bytea('requests_hash'),
    /** RLP length of `[header, [], []]`, the `size` geth reports for an uncle. */
    size: integer('size').notNull(),
    /**
     * The uncle's `eth_getUncleByBlockHashAndIndex` result as JSON text, written by Postgres from
     * the columns above on every insert or update (so it cannot drift from them): the cold read
     * takes it as it is instead of writing ~1.4 KB of text per lookup. Kept uncompressed in the
     * row (the table's toast_tuple_target, migration 0012).
     */
    answer: text('answer')
      .notNull()
      .generatedAlwaysAs((): SQL => sql.raw(uncleAnswerSql(uncleColumn))),
  },
  (t) => [
    primaryKey({ columns: [t.network, t.blockHash, t.index] }),
    foreignKey({ columns: [t.network, t.blockHash], foreignColumns: [blocks.network, blocks.hash] }).onDelete('cascade'),
    index('uncles_network_miner_idx').on(t.network, t.miner),
    index('uncles_network_hash_idx').on(t.network, t.hash),
    index('uncles_network_block_number_idx').on(t.network, t.blockNumber),
  ],
)

/** An uncles column by its field's name, for the answer's expression (read once the table exists). */
function uncleColumn(field: string): AnswerColumn {
  return (getTableColumns(uncles) as Record<string, AnswerColumn>)[field]!
}

/**
 * Block ranges whose blocks and uncles are all written, each recorded in the same transaction as
 * its rows. Rows may overlap or touch; readers merge them. The indexer resumes from the gaps.
 */
export const indexedRanges = pgTable(
  'indexed_ranges',
  {
    network: text('network')
      .notNull()
      .references(() => networks.name),
    fromBlock: bigint('from_block', { mode: 'bigint' }).notNull(),
    toBlock: bigint('to_block', { mode: 'bigint' }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.network, t.fromBlock, t.toBlock] }),
    check('indexed_ranges_order_check', sql`${t.fromBlock} <= ${t.toBlock} and ${t.fromBlock} >= 0`),
  ],
)

/**
 * This database's identity: one row, a random id made the first time an indexer asks for it.
 * The indexer tags its Redis job queues with it, so a queue left from an earlier database of the
 * same name (dropped and created again, or another server's) is recognised and not trusted.
 */
export const databaseIdentity = pgTable(
  'database_identity',
  {
    only: boolean('only').primaryKey().default(true),
    id: uuid('id').notNull().defaultRandom(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('database_identity_one_row_check', sql`${t.only}`)],
)

/**
 * era1 files the indexer refused (failed verification: structure, checksums, hashes, total
 * difficulty or epoch root), one row per network and epoch, so `uncle-rpc status` can name them.
 * Removed when the epoch is indexed later (from a good file).
 */
export const era1Refusals = pgTable(
  'era1_refusals',
  {
    network: text('network')
      .notNull()
      .references(() => networks.name),
    epoch: integer('epoch').notNull(),
    file: text('file').notNull(),
    reason: text('reason').notNull(),
    refusedAt: timestamp('refused_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.network, t.epoch] })],
)

/**
 * Reorgs the indexer applied, one row each: the heights `[from_block, to_block]` whose canonical
 * block changed (replaced blocks stay in `blocks`, not canonical). Readers that cache answers by
 * height poll the highest `id` (an index lookup) and drop what a newer row covers.
 */
export const reorgs = pgTable(
  'reorgs',
  {
    id: bigint('id', { mode: 'bigint' }).primaryKey().generatedAlwaysAsIdentity(),
    network: text('network')
      .notNull()
      .references(() => networks.name),
    /** Lowest height whose canonical block changed (the common ancestor is at from_block − 1). */
    fromBlock: bigint('from_block', { mode: 'bigint' }).notNull(),
    /** Highest height whose stored canonical block was replaced. */
    toBlock: bigint('to_block', { mode: 'bigint' }).notNull(),
    /** Number of blocks that stopped being canonical. */
    depth: integer('depth').notNull(),
    /** The replaced canonical block at to_block, and the block that took its place (null: none yet). */
    oldHash: bytea('old_hash').notNull(),
    newHash: bytea('new_hash'),
    detectedAt: timestamp('detected_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('reorgs_network_id_idx').on(t.network, t.id),
    check('reorgs_order_check', sql`${t.fromBlock} <= ${t.toBlock} and ${t.depth} > 0`),
  ],
)

const hex = byteaHexSql
// Note: to_timestamp fails past year 294276 and one bad row would break every query on the
// view, so timestamps past 9999-12-31 show as null `time` (the raw `timestamp` stays).
const time = (column: unknown) => sql<Date | null>`case when ${column} <= 253402300799 then to_timestamp(${column}) end`

/** `blocks` for people: hashes as `0x…` text. */
export const blocksHex = pgView('blocks_hex').as((qb) =>
  qb
    .select({
      network: blocks.network,
      number: blocks.number,
      hash: hex(blocks.hash).as('hash'),
      parentHash: hex(blocks.parentHash).as('parent_hash'),
      uncleCount: blocks.uncleCount,
      canonical: blocks.canonical,
    })
    .from(blocks),
)

/** `uncles` for people: every byte string as `0x…` text, quantities as numeric, `time` as timestamptz. */
export const unclesHex = pgView('uncles_hex').as((qb) =>
  qb
    .select({
      network: uncles.network,
      blockNumber: uncles.blockNumber,
      blockHash: hex(uncles.blockHash).as('block_hash'),
      index: uncles.index,
      hash: hex(uncles.hash).as('hash'),
      number: uncles.number,
      parentHash: hex(uncles.parentHash).as('parent_hash'),
      sha3Uncles: hex(uncles.sha3Uncles).as('sha3_uncles'),
      miner: hex(uncles.miner).as('miner'),
      stateRoot: hex(uncles.stateRoot).as('state_root'),
      transactionsRoot: hex(uncles.transactionsRoot).as('transactions_root'),
      receiptsRoot: hex(uncles.receiptsRoot).as('receipts_root'),
      logsBloom: hex(uncles.logsBloom).as('logs_bloom'),
      difficulty: uncles.difficulty,
      gasLimit: uncles.gasLimit,
      gasUsed: uncles.gasUsed,
      timestamp: uncles.timestamp,
      time: time(uncles.timestamp).as('time'),
      extraData: hex(uncles.extraData).as('extra_data'),
      mixHash: hex(uncles.mixHash).as('mix_hash'),
      nonce: hex(uncles.nonce).as('nonce'),
      baseFeePerGas: uncles.baseFeePerGas,
      withdrawalsRoot: hex(uncles.withdrawalsRoot).as('withdrawals_root'),
      blobGasUsed: uncles.blobGasUsed,
      excessBlobGas: uncles.excessBlobGas,
      parentBeaconBlockRoot: hex(uncles.parentBeaconBlockRoot).as('parent_beacon_block_root'),
      requestsHash: hex(uncles.requestsHash).as('requests_hash'),
      size: uncles.size,
    })
    .from(uncles),
)
