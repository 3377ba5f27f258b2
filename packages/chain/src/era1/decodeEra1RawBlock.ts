import { bytesToBigInt, bytesToHexString } from '../bytes.js'
import { Era1PayloadError } from './errors.js'
import type { HashedHeader, Hex } from '../header.js'
import { decodeHeaderBytes, type HeaderBytes, headerFieldIndex, headerFromBytes } from '../headerBytes.js'
import { keccak256Bytes } from '../hashes.js'
import { type RlpItem, readRlpList } from '../rlp/readRlpItem.js'
import { rlpListLength } from '../uncleSize.js'

/** One block as an era1 file holds it, decoded; hashes are computed (era1 stores none). */
export type Era1Block = {
  header: HashedHeader
  uncles: HashedHeader[]
  /** Computed on first read (see `era1BlockFromRaw`). */
  transactionHashes: Hex[]
  totalDifficulty: bigint
  /** RLP length of `[header, transactions, uncles]`, as geth's `block.Size()` reports it. */
  size: number
}

/** The decompressed payloads of one era1 block tuple. */
export type Era1BlockPayloads = { headerRlp: Uint8Array; bodyRlp: Uint8Array; totalDifficulty: Uint8Array }

/**
 * One era1 block decoded to bytes only: no hex, and the transactions are located but not hashed.
 * Header and uncle fields are views into the decompressed payloads.
 */
export type Era1RawBlock = {
  /** The header's number field. */
  number: bigint
  header: HeaderBytes
  /** The uncle headers in list order, each hashed. */
  uncles: HeaderBytes[]
  /** RLP of the body's uncle list: keccak256 of it must be the header's `sha3Uncles`. */
  unclesRlp: Uint8Array
  /** The body's transactions list, each item as stored (legacy: an RLP list; typed: a byte string). */
  transactions: Uint8Array[]
  totalDifficulty: bigint
  /** The TotalDifficulty record as stored: 32 bytes, little-endian (the accumulator hashes these). */
  totalDifficultyLe: Uint8Array
  /** RLP length of `[header, transactions, uncles]`, as geth's `block.Size()` reports it. */
  size: number
}

/** A 32-byte little-endian uint256, as era1's TotalDifficulty record stores it. */
export function uint256FromLe(bytes: Uint8Array): bigint {
  if (bytes.length !== 32) return bytesToBigInt(Uint8Array.from(bytes).reverse())
  const view = new DataView(bytes.buffer, bytes.byteOffset, 32)
  let value = view.getBigUint64(0, true)
  // Note: every real total difficulty fits in 128 bits; skip the upper limbs when they are zero.
  const high = view.getBigUint64(8, true)
  if (high !== 0n) value |= high << 64n
  const top = view.getBigUint64(16, true) | view.getBigUint64(24, true)
  if (top !== 0n) value |= (view.getBigUint64(16, true) << 128n) | (view.getBigUint64(24, true) << 192n)
  return value
}

function expectList(item: RlpItem | undefined, what: string): RlpItem {
  if (item === undefined || !item.list) throw new Era1PayloadError(`${what} is not an RLP list`)
  return item
}

/**
 * Decodes an era1 block tuple to bytes: the header and each uncle strictly (their hashes are of
 * the stored bytes, which strict decoding makes equal to re-encoding), the body's two lists.
 * Throws RlpDecodeError, InvalidHeaderError or Era1PayloadError on malformed payloads; callers wrap them.
 */
export function decodeEra1RawBlock({ headerRlp, bodyRlp, totalDifficulty }: Era1BlockPayloads): Era1RawBlock {
  const header = decodeHeaderBytes(headerRlp)
  if (header.rlp.length !== headerRlp.length) throw new Era1PayloadError('header payload has bytes after the header')
  const { list: body, items } = readRlpList(bodyRlp, 0)
  if (body.end !== bodyRlp.length) throw new Era1PayloadError('body payload has bytes after the body list')
  if (items.length < 2) throw new Era1PayloadError(`body has ${items.length} items, expected [transactions, uncles]`)
  const txList = expectList(items[0], 'body transactions')
  const uncleList = expectList(items[1], 'body uncles')
  const uncles: HeaderBytes[] = []
  for (let pos = uncleList.payloadStart; pos < uncleList.end; ) {
    const uncle = decodeHeaderBytes(bodyRlp, pos, uncleList.end)
    uncles.push(uncle)
    pos += uncle.rlp.length
  }
  const transactions = readRlpList(bodyRlp, txList.start, txList.end).items.map((tx) =>
    tx.list ? bodyRlp.subarray(tx.start, tx.end) : bodyRlp.subarray(tx.payloadStart, tx.end),
  )
  if (totalDifficulty.length !== 32) throw new Era1PayloadError(`total difficulty holds ${totalDifficulty.length} bytes, expected 32`)
  return {
    number: bytesToBigInt(header.fields[headerFieldIndex.number]!),
    header,
    uncles,
    unclesRlp: bodyRlp.subarray(uncleList.start, uncleList.end),
    transactions,
    totalDifficulty: uint256FromLe(totalDifficulty),
    totalDifficultyLe: totalDifficulty,
    // [header, txs, uncles] shares the body's payload (its lists), behind the header.
    size: rlpListLength(headerRlp.length + (body.end - body.payloadStart)),
  }
}

/**
 * The domain form of a raw block. `transactionHashes` is computed when first read
 * (keccak256 of a legacy tx's RLP list or of a typed tx's bytes, EIP-2718), so callers that
 * never read it never pay for it.
 */
export function era1BlockFromRaw(raw: Era1RawBlock): Era1Block {
  let hashes: Hex[] | undefined
  return {
    header: headerFromBytes(raw.header),
    uncles: raw.uncles.map(headerFromBytes),
    get transactionHashes() {
      hashes ??= raw.transactions.map((tx) => bytesToHexString(keccak256Bytes(tx)))
      return hashes
    },
    totalDifficulty: raw.totalDifficulty,
    size: raw.size,
  }
}
