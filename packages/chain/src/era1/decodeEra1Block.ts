import { decodeEra1RawBlock, type Era1Block, type Era1BlockPayloads, era1BlockFromRaw } from './decodeEra1RawBlock.js'

export type { Era1Block, Era1BlockPayloads }

/**
 * Decodes an era1 block tuple: header RLP, body RLP `[transactions, uncles]` and the total
 * difficulty, to domain values (through the byte decoder, `decodeEra1RawBlock`).
 * Throws RlpDecodeError, InvalidHeaderError or BaseError on malformed payloads; callers wrap them.
 */
export function decodeEra1Block(payloads: Era1BlockPayloads): Era1Block {
  return era1BlockFromRaw(decodeEra1RawBlock(payloads))
}
