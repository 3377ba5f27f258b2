import { headerRlp } from './hashHeader.js'
import type { BlockHeader, Hex } from './header.js'

/** Length in bytes of an RLP list whose payload is `payloadLength` bytes. */
export function rlpListLength(payloadLength: number): number {
  if (payloadLength < 56) return 1 + payloadLength
  let lengthOfLength = 0
  for (let n = payloadLength; n > 0; n = Math.floor(n / 256)) lengthOfLength++
  return 1 + lengthOfLength + payloadLength
}

/** Byte length of a hex string's bytes. */
export function hexByteLength(hex: Hex): number {
  return (hex.length - 2) / 2
}

/**
 * The `size` geth reports for an uncle: the RLP length of the block
 * `[header, [], []]` that `types.NewBlockWithHeader(uncle)` makes.
 */
export function uncleSize(header: BlockHeader): number {
  return uncleSizeFromRlpLength(hexByteLength(headerRlp(header)))
}

/** {@link uncleSize} when the header's RLP length is already known. */
export function uncleSizeFromRlpLength(headerRlpLength: number): number {
  // two empty lists (0xc0 0xc0) after the header, inside one outer list
  return rlpListLength(headerRlpLength + 2)
}
