import { bigIntToMinimalBytes, bytesToBigInt, bytesToHexString, hexStringToBytes } from './bytes.js'
import { presentHeaderFields } from './codecs.js'
import { InvalidHeaderError } from './errors.js'
import { type BlockHeader, type HashedHeader, type HeaderFieldName, type Hex, headerFields, requiredFieldCount } from './header.js'
import { keccak256Bytes } from './hashes.js'
import { RlpDecodeError, type RlpItem, readRlpItemInto, rlpPrefixLength, rlpStringLength, writeRlpPrefix, writeRlpString } from './rlp/readRlpItem.js'

// Header RLP bytes ↔ domain, with no hex string in between. The byte form keeps every field as
// a view into the stored RLP: what a binary database writer wants, and what hashing needs.

/**
 * A header as bytes: its RLP exactly as stored, its keccak256, and each field's payload
 * (views into `rlp`, in RLP order; quantities are minimal big-endian bytes, zero is empty).
 */
export type HeaderBytes = { rlp: Uint8Array; hash: Uint8Array; fields: Uint8Array[] }

/** Index of each header field in {@link HeaderBytes.fields}. */
export const headerFieldIndex = Object.fromEntries(headerFields.map(([name], i) => [name, i])) as Record<
  HeaderFieldName,
  number
>

const fieldSizes = headerFields.map(([, kind]) => (typeof kind === 'object' ? kind.bytes : kind === 'quantity' ? -1 : -2))

/**
 * Decodes the header RLP list starting at `start` of `bytes` (ending by `limit`) and hashes it.
 * Strict: canonical RLP only, 15–21 byte-string items, fixed-size fields of their size,
 * quantities without leading zeros and at most 32 bytes. Strictness makes `hash` equal
 * {@link hashHeader} of the decoded header. Throws RlpDecodeError or {@link InvalidHeaderError}.
 */
export function decodeHeaderBytes(bytes: Uint8Array, start = 0, limit = bytes.length): HeaderBytes {
  const list = readRlpItemInto(scratch, bytes, start, limit)
  if (!list.list) throw new RlpDecodeError({ offset: start, reason: 'expected a header list, found a byte string' })
  const listEnd = list.end
  const fields: Uint8Array[] = []
  for (let pos = list.payloadStart; pos < listEnd; ) {
    const i = fields.length
    if (i === headerFields.length) throw fieldCountError(`more than ${i}`)
    const item = readRlpItemInto(scratch, bytes, pos, listEnd)
    if (item.list) throw new InvalidHeaderError({ field: headerFields[i]![0], value: '(list)', reason: 'expected a byte string' })
    const value = bytes.subarray(item.payloadStart, item.end)
    const size = fieldSizes[i]!
    if (size >= 0 ? value.length !== size : size === -1 && (value.length > 32 || value[0] === 0))
      throw new InvalidHeaderError({
        field: headerFields[i]![0],
        value: bytesToHexString(value),
        reason: size >= 0 ? `expected ${size} bytes` : 'non-canonical quantity (leading zero or over 32 bytes)',
      })
    fields.push(value)
    pos = item.end
  }
  if (fields.length < requiredFieldCount) throw fieldCountError(fields.length)
  const rlp = bytes.subarray(start, listEnd)
  return { rlp, hash: keccak256Bytes(rlp), fields }
}

function fieldCountError(count: number | string): InvalidHeaderError {
  return new InvalidHeaderError({ field: '(rlp)', value: count, reason: `expected ${requiredFieldCount}–${headerFields.length} items` })
}

// Note: one scratch item for the decoder (synchronous, never re-entered), so decoding a header allocates only its field views.
const scratch: RlpItem = { list: false, start: 0, payloadStart: 0, end: 0 }

/** The domain header of {@link HeaderBytes} (one hex or bigint conversion per field). */
export function headerFromBytes(header: HeaderBytes): HashedHeader {
  const { rlp, fields } = header
  // Note: one Buffer over the RLP, sliced to hex per field, instead of a Buffer view per field.
  const buffer = Buffer.from(rlp.buffer, rlp.byteOffset, rlp.length)
  const result: Record<string, unknown> = {}
  for (let i = 0; i < fields.length; i++) {
    const [name, kind] = headerFields[i]!
    const field = fields[i]!
    if (kind === 'quantity') result[name] = bytesToBigInt(field)
    else {
      const start = field.byteOffset - rlp.byteOffset
      result[name] = `0x${buffer.toString('hex', start, start + field.length)}`
    }
  }
  result.hash = bytesToHexString(header.hash)
  return result as HashedHeader
}

/**
 * RLP(header) as bytes, straight from the domain values (the preimage of the block hash).
 * Throws {@link InvalidHeaderError} if a fork field is present without the ones before it.
 */
export function encodeHeaderBytes(header: BlockHeader): Uint8Array {
  const items: Uint8Array[] = []
  let payload = 0
  for (const [kind, value] of presentHeaderFields(header)) {
    const bytes = kind === 'quantity' ? bigIntToMinimalBytes(value as bigint) : hexStringToBytes(value as Hex)
    items.push(bytes)
    payload += rlpStringLength(bytes)
  }
  return encodeList(items, payload)
}

function encodeList(items: readonly Uint8Array[], payload: number): Uint8Array {
  const out = new Uint8Array(rlpPrefixLength(payload) + payload)
  let pos = writeRlpPrefix(out, 0, payload, true)
  for (const item of items) pos = writeRlpString(out, pos, item)
  return out
}

/** RLP of a list of already-encoded items (e.g. header RLPs: the uncle list `sha3Uncles` commits to). */
export function encodeRlpListOf(encodedItems: readonly Uint8Array[]): Uint8Array {
  let payload = 0
  for (const item of encodedItems) payload += item.length
  const out = new Uint8Array(rlpPrefixLength(payload) + payload)
  let pos = writeRlpPrefix(out, 0, payload, true)
  for (const item of encodedItems) {
    out.set(item, pos)
    pos += item.length
  }
  return out
}
