import { fromRlp, keccak256, toRlp } from 'viem'
import { headerFromRlpFields } from '../codecs.js'
import { BaseError } from '../errors.js'
import { hashHeader } from '../hashHeader.js'
import type { HashedHeader, Hex } from '../header.js'
import { rlpListLength } from '../uncleSize.js'
import { rlpListPrefix } from './rlpListPrefix.js'

/** One block as an era1 file holds it, decoded; hashes are computed (era1 stores none). */
export type Era1Block = {
  header: HashedHeader
  uncles: HashedHeader[]
  transactionHashes: Hex[]
  totalDifficulty: bigint
  /** RLP length of `[header, transactions, uncles]`, as geth's `block.Size()` reports it. */
  size: number
}

/** The decompressed payloads of one era1 block tuple. */
export type Era1BlockPayloads = { headerRlp: Uint8Array; bodyRlp: Uint8Array; totalDifficulty: Uint8Array }

/** A 32-byte little-endian uint256, as era1's TotalDifficulty record stores it. */
export function uint256FromLe(bytes: Uint8Array): bigint {
  let value = 0n
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!)
  return value
}

function asList(value: unknown, what: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new BaseError(`${what} is not an RLP list`)
  return value
}

/**
 * Decodes an era1 block tuple: header RLP, body RLP `[transactions, uncles]` and the total
 * difficulty. Transaction hash = keccak256 of a legacy tx's RLP list or of a typed tx's bytes (EIP-2718).
 * Throws viem's RLP errors, InvalidHeaderError or BaseError on malformed payloads; callers wrap them.
 */
export function decodeEra1Block({ headerRlp, bodyRlp, totalDifficulty }: Era1BlockPayloads): Era1Block {
  const headerFields = asList(fromRlp(headerRlp, 'hex'), 'header')
  // Note: the hash is of the stored bytes; verifyBlock then checks that re-encoding the decoded
  // fields gives the same hash, which is what the rest of the system relies on.
  const header: HashedHeader = { ...headerFromRlpFields(headerFields), hash: keccak256(headerRlp) }

  const body = asList(fromRlp(bodyRlp, 'hex'), 'body')
  if (body.length < 2) throw new BaseError(`body has ${body.length} items, expected [transactions, uncles]`)
  const transactions = asList(body[0], 'body transactions')
  const uncles = asList(body[1], 'body uncles').map((item, i) => {
    const fields = headerFromRlpFields(asList(item, `uncle ${i}`))
    return { ...fields, hash: hashHeader(fields) }
  })
  const transactionHashes = transactions.map((tx) =>
    typeof tx === 'string' ? keccak256(tx as Hex) : keccak256(toRlp(tx as Parameters<typeof toRlp>[0])),
  )

  // [header, txs, uncles] shares the body's payload (its two lists), behind the header.
  const bodyPayload = bodyRlp.length - rlpListPrefix(bodyRlp)!.prefixLength
  return {
    header,
    uncles,
    transactionHashes,
    totalDifficulty: uint256FromLe(totalDifficulty),
    size: rlpListLength(headerRlp.length + bodyPayload),
  }
}
