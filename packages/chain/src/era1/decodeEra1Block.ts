import type { HashedHeader, Hex } from '../header.js'
import { decodeEra1RawBlock, era1BlockFromRaw } from './decodeEra1RawBlock.js'

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
 * Decodes an era1 block tuple: header RLP, body RLP `[transactions, uncles]` and the total
 * difficulty, to domain values (through the byte decoder, `decodeEra1RawBlock`).
 * Throws RlpDecodeError, InvalidHeaderError or BaseError on malformed payloads; callers wrap them.
 */
export function decodeEra1Block(payloads: Era1BlockPayloads): Era1Block {
  return era1BlockFromRaw(decodeEra1RawBlock(payloads))
}
