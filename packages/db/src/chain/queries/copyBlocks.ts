import { type HashedHeader, type Hex, headerFields, hexDataPattern } from '@uncle-rpc/chain'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import type { Tx } from '../../client.js'
import { transactionClient } from '../../drizzleInternals.js'
import { copyBytea, copyInt8, copyNumeric, copyText } from '../../copyText.js'
import type { PgErrorFields } from '../../errors.js'
import { uncles as uncleTable } from '../schema.js'
import { type BlockWithUncles, expectRegisteredNetwork, type InsertBlocksWithUnclesReturnType, insertBlocksWithUncles, writeError } from './blocks.js'

// Bulk write through COPY FROM STDIN: ~3× the rows/s of one INSERT … SELECT unnest(…)
// (bench/era1.ts). COPY cannot skip rows that exist, so it runs under a
// savepoint and, when a row is already there, the batch is written again with the
// idempotent INSERT path instead: the fast path for fresh ranges, the same result always.

const blockColumns = '(network, hash, number, parent_hash, uncle_count)'
// Note: the header columns are named after the header fields (headerFields is their one list).
const uncleColumns = `(network, block_hash, block_number, index, hash, ${headerFields.map(([name]) => uncleTable[name].name).join(', ')}, size)`

/** One header field in COPY text: bytes as bytea, quantities as decimal (numeric or int8 columns alike). */
const copyField = ([name, kind]: (typeof headerFields)[number], header: HashedHeader): string =>
  kind === 'quantity' ? copyNumeric(header[name] as bigint | undefined) : copyBytea(header[name] as Hex | undefined)

function blockLines(network: string, items: readonly BlockWithUncles[]): string {
  const net = copyText(network)
  let out = ''
  for (const { header, uncles } of items)
    out += `${net}\t${copyBytea(header.hash)}\t${copyInt8(header.number)}\t${copyBytea(header.parentHash)}\t${uncles.length}\n`
  return out
}

function uncleLines(network: string, items: readonly BlockWithUncles[]): string {
  const net = copyText(network)
  let out = ''
  for (const { header: block, uncles } of items)
    uncles.forEach((u, index) => {
      out += [
        net,
        copyBytea(block.hash),
        copyInt8(block.number),
        index,
        copyBytea(u.hash),
        ...headerFields.map((field) => copyField(field, u)),
        u.size,
      ].join('\t')
      out += '\n'
    })
  return out
}

async function copy(client: pg.PoolClient, statement: string, data: string): Promise<void> {
  if (data.length === 0) return
  const stream = client.query(copyFrom(statement))
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject)
    stream.on('finish', resolve)
    stream.end(data)
  })
}

/**
 * Writes blocks and their uncles inside transaction `tx` like {@link insertBlocksWithUncles}
 * (rows already present are skipped; same errors), by COPY when none of them is there yet.
 */
export async function copyBlocksWithUncles(
  tx: Tx,
  { network, blocks: items }: { network: string; blocks: readonly BlockWithUncles[] },
): Promise<InsertBlocksWithUnclesReturnType> {
  if (items.length === 0) return { blocks: 0, uncles: 0 }
  // Note: COPY's bytea input would accept odd hex; the INSERT path refuses it, and so does this.
  for (const { header } of items)
    if (!hexDataPattern.test(header.hash) || !hexDataPattern.test(header.parentHash)) return insertBlocksWithUncles(tx, { network, blocks: items })
  await expectRegisteredNetwork(tx, network)
  const client = transactionClient(tx)
  await client.query('savepoint uncle_rpc_copy')
  try {
    await copy(client, `copy blocks ${blockColumns} from stdin`, blockLines(network, items))
    await copy(client, `copy uncles ${uncleColumns} from stdin`, uncleLines(network, items))
    await client.query('release savepoint uncle_rpc_copy')
    return { blocks: items.length, uncles: items.reduce((n, b) => n + b.uncles.length, 0) }
  } catch (error) {
    await client.query('rollback to savepoint uncle_rpc_copy')
    const pgError = error as PgErrorFields
    if (pgError.code === '23505') return insertBlocksWithUncles(tx, { network, blocks: items })
    throw writeError(network, error)
  }
}
