import { BaseError } from '@uncle-rpc/errors'

// A strict RLP reader over bytes: it only locates items (no copies, no hex), and refuses every
// non-canonical encoding. Strictness is what lets a verifier hash the stored bytes: bytes that
// decode here re-encode to themselves, so their hash is the hash of the decoded values.

/** RLP bytes that are malformed or not in canonical (minimal) form. */
export class RlpDecodeError extends BaseError {
  /** Byte offset of the offending item. */
  readonly offset: number
  constructor({ offset, reason }: { offset: number; reason: string }) {
    super(`Invalid RLP at byte ${offset}: ${reason}`, { name: 'RlpDecodeError' })
    this.offset = offset
  }
}

/** Where one RLP item sits: its prefix at `start`, its payload `[payloadStart, end)`. */
export type RlpItem = { list: boolean; start: number; payloadStart: number; end: number }

/**
 * Reads the item starting at `start`, which must end by `limit` (default: the end of `bytes`).
 * Throws {@link RlpDecodeError} on truncation or a non-canonical prefix.
 */
export function readRlpItem(bytes: Uint8Array, start: number, limit = bytes.length): RlpItem {
  return readRlpItemInto({ list: false, start: 0, payloadStart: 0, end: 0 }, bytes, start, limit)
}

/** {@link readRlpItem} into an existing object (hot loops reuse one and allocate nothing). */
export function readRlpItemInto(item: RlpItem, bytes: Uint8Array, start: number, limit: number): RlpItem {
  if (start >= limit) throw new RlpDecodeError({ offset: start, reason: 'expected an item, found the end of the input' })
  const first = bytes[start]!
  item.start = start
  if (first < 0x80) {
    item.list = false
    item.payloadStart = start
    item.end = start + 1
    return item
  }
  let list: boolean
  let payloadStart: number
  let length: number
  if (first <= 0xb7 || (first >= 0xc0 && first <= 0xf7)) {
    list = first >= 0xc0
    length = first - (list ? 0xc0 : 0x80)
    payloadStart = start + 1
    if (!list && length === 1 && payloadStart < limit && bytes[payloadStart]! < 0x80)
      throw new RlpDecodeError({ offset: start, reason: 'single byte below 0x80 must be encoded as itself' })
  } else {
    list = first >= 0xf8
    const lengthOfLength = first - (list ? 0xf7 : 0xb7)
    payloadStart = start + 1 + lengthOfLength
    if (payloadStart > limit) throw new RlpDecodeError({ offset: start, reason: 'length bytes run past the end' })
    if (bytes[start + 1] === 0) throw new RlpDecodeError({ offset: start, reason: 'length has a leading zero byte' })
    length = 0
    for (let i = start + 1; i < payloadStart; i++) length = length * 256 + bytes[i]!
    if (length < 56) throw new RlpDecodeError({ offset: start, reason: `long form used for a length of ${length}` })
  }
  const end = payloadStart + length
  if (end > limit)
    throw new RlpDecodeError({ offset: start, reason: `item of ${length} bytes runs past the end (${limit - payloadStart} left)` })
  item.list = list
  item.payloadStart = payloadStart
  item.end = end
  return item
}

/** Reads the list item at `start` and returns its items (not descended into). */
export function readRlpList(bytes: Uint8Array, start: number, limit = bytes.length): { list: RlpItem; items: RlpItem[] } {
  const list = readRlpItem(bytes, start, limit)
  if (!list.list) throw new RlpDecodeError({ offset: start, reason: 'expected a list, found a byte string' })
  const items: RlpItem[] = []
  for (let pos = list.payloadStart; pos < list.end; ) {
    const item = readRlpItem(bytes, pos, list.end)
    items.push(item)
    pos = item.end
  }
  return { list, items }
}

/** Length of the prefix RLP puts before a payload of `length` bytes. */
export function rlpPrefixLength(length: number): number {
  if (length < 56) return 1
  let lengthOfLength = 0
  for (let n = length; n > 0; n = Math.floor(n / 256)) lengthOfLength++
  return 1 + lengthOfLength
}

/** Writes the prefix of a string (0x80) or list (0xc0) of `length` bytes at `pos`; returns the new position. */
export function writeRlpPrefix(out: Uint8Array, pos: number, length: number, list: boolean): number {
  const base = list ? 0xc0 : 0x80
  if (length < 56) {
    out[pos] = base + length
    return pos + 1
  }
  let lengthOfLength = 0
  for (let n = length; n > 0; n = Math.floor(n / 256)) lengthOfLength++
  out[pos] = base + 55 + lengthOfLength
  for (let i = lengthOfLength, n = length; i > 0; i--, n = Math.floor(n / 256)) out[pos + i] = n % 256
  return pos + 1 + lengthOfLength
}

/** Writes `bytes` as an RLP string at `pos`; returns the new position. */
export function writeRlpString(out: Uint8Array, pos: number, bytes: Uint8Array): number {
  if (bytes.length === 1 && bytes[0]! < 0x80) {
    out[pos] = bytes[0]!
    return pos + 1
  }
  const at = writeRlpPrefix(out, pos, bytes.length, false)
  out.set(bytes, at)
  return at + bytes.length
}

/** Encoded length of `bytes` as an RLP string. */
export function rlpStringLength(bytes: Uint8Array): number {
  if (bytes.length === 1 && bytes[0]! < 0x80) return 1
  return rlpPrefixLength(bytes.length) + bytes.length
}
