// Reads only an RLP list's prefix (no decoding): enough to size a block from its body and to
// check that a payload we do not decode (receipts) is one whole list.

/** The prefix and payload lengths of the RLP list `rlp` starts with, or undefined if it does not start with a list. */
export function rlpListPrefix(rlp: Uint8Array): { prefixLength: number; payloadLength: number } | undefined {
  const first = rlp[0]
  if (first === undefined || first < 0xc0) return undefined
  if (first <= 0xf7) return { prefixLength: 1, payloadLength: first - 0xc0 }
  const lengthOfLength = first - 0xf7
  if (rlp.length < 1 + lengthOfLength) return undefined
  let payloadLength = 0
  for (let i = 1; i <= lengthOfLength; i++) payloadLength = payloadLength * 256 + rlp[i]!
  return { prefixLength: 1 + lengthOfLength, payloadLength }
}

/** Whether `rlp` is exactly one RLP list by its prefix (its items are not checked). */
export function isWholeRlpList(rlp: Uint8Array): boolean {
  const prefix = rlpListPrefix(rlp)
  return prefix !== undefined && prefix.prefixLength + prefix.payloadLength === rlp.length
}
