import { bytesToHexString } from './bytes.js'
import { rlpPrefixLength, rlpStringLength, writeRlpPrefix, writeRlpString } from './rlp/readRlpItem.js'
import { InvalidHeaderError, InvalidQuantityError } from './errors.js'
import { type BlockHeader, type FieldKind, type HashedHeader, type Hex, headerFields, requiredFieldCount } from './header.js'

// The one place where wire (JSON-RPC) and RLP forms of a header meet the domain form.

/** A JSON-RPC quantity: `0x` and hex digits without leading zeros (`0x0` for zero). The one copy of this rule. */
export const quantityPattern = /^0x(0|[1-9a-f][0-9a-f]*)$/i
/** JSON-RPC data: `0x` and whole bytes of hex digits. The one copy of this rule. Note: a group that captures nothing (capturing took 200 ns a hash, this 155). */
export const hexDataPattern = /^0x(?:[0-9a-f]{2})*$/i

function readQuantity(value: unknown): bigint | undefined {
  return typeof value === 'string' && quantityPattern.test(value) ? BigInt(value) : undefined
}

/** A JSON-RPC quantity (`0x…`, no leading zeros) outside a header → bigint; `what` names it in the InvalidQuantityError. */
export function quantityFromRpc(what: string, value: unknown): bigint {
  const quantity = readQuantity(value)
  if (quantity === undefined) throw new InvalidQuantityError(what, value)
  return quantity
}

function parseBytes(field: string, value: unknown, size: number | undefined): Hex {
  if (typeof value !== 'string' || !hexDataPattern.test(value))
    throw new InvalidHeaderError({ field, value, reason: 'expected 0x-prefixed hex bytes' })
  if (size !== undefined && value.length !== 2 + size * 2)
    throw new InvalidHeaderError({ field, value, reason: `expected ${size} bytes` })
  return value.toLowerCase() as Hex
}

/** A node's header with its RLP encoding (the preimage of its hash), read in one pass. */
export type RpcHeader = { header: HashedHeader; rlp: Uint8Array }

// Note: Buffer's hex decoder stops at the first character that is not hex, so decoding and
// checking a field is one native pass: fewer bytes than digits / 2 means bad input.
function hexDigitsToBytes(digits: string): Buffer | undefined {
  const bytes = Buffer.from(digits, 'hex')
  return bytes.length * 2 === digits.length ? bytes : undefined
}

// `0x` or `0X`, as the JSON-RPC quantity and data regexes of old accepted.
const hasHexPrefix = (value: string) => value.charCodeAt(0) === 48 && (value.charCodeAt(1) | 0x20) === 120

function quantityField(field: string, value: unknown): { value: bigint; bytes: Uint8Array } {
  if (typeof value === 'string' && value.length > 2 && hasHexPrefix(value)) {
    // Canonical: hex digits without a leading zero, or the single digit 0.
    if (value.length === 3 && value.charCodeAt(2) === 48) return { value: 0n, bytes: new Uint8Array(0) }
    if (value.charCodeAt(2) !== 48) {
      const bytes = hexDigitsToBytes(value.length % 2 ? `0${value.slice(2)}` : value.slice(2))
      if (bytes) return { value: BigInt(value), bytes }
    }
  }
  throw new InvalidHeaderError({ field, value, reason: 'expected a hex quantity' })
}

function bytesField(field: string, value: unknown, size: number | undefined): { value: Hex; bytes: Uint8Array } {
  const bytes = typeof value === 'string' && value.length % 2 === 0 && hasHexPrefix(value) ? hexDigitsToBytes(value.slice(2)) : undefined
  if (!bytes) throw new InvalidHeaderError({ field, value, reason: 'expected 0x-prefixed hex bytes' })
  if (size !== undefined && bytes.length !== size) throw new InvalidHeaderError({ field, value, reason: `expected ${size} bytes` })
  return { value: (value as string).toLowerCase() as Hex, bytes }
}

/**
 * Decodes a node's JSON block or uncle object (as `eth_getBlockBy*` or
 * `eth_getUncleBy*` return it) into a domain header with its claimed hash, and encodes its RLP
 * from the same field bytes (no bigint → bytes round trip): what hashing it needs.
 * Keys that are not header fields (size, totalDifficulty, transactions…) are ignored.
 */
export function rpcHeaderWithRlp(json: unknown): RpcHeader {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new InvalidHeaderError({ field: '(object)', value: json, reason: 'expected a block object' })
  const obj = json as Record<string, unknown>
  const header: Record<string, bigint | Hex> = {}
  const items: Uint8Array[] = []
  let payload = 0
  let optionalSeen = true
  for (let index = 0; index < headerFields.length; index++) {
    const [name, kind] = headerFields[index]!
    const value = obj[name]
    if (value === undefined || value === null) {
      if (index < requiredFieldCount) throw new InvalidHeaderError({ field: name, value, reason: 'missing' })
      optionalSeen = false
      continue
    }
    if (!optionalSeen) throw new InvalidHeaderError({ field: name, value, reason: 'present without the fork fields before it' })
    const parsed = kind === 'quantity' ? quantityField(name, value) : bytesField(name, value, kind === 'data' ? undefined : kind.bytes)
    header[name] = parsed.value
    items.push(parsed.bytes)
    payload += rlpStringLength(parsed.bytes)
  }
  header.hash = bytesField('hash', obj.hash, 32).value
  const rlp = new Uint8Array(rlpPrefixLength(payload) + payload)
  let pos = writeRlpPrefix(rlp, 0, payload, true)
  for (const item of items) pos = writeRlpString(rlp, pos, item)
  return { header: header as unknown as HashedHeader, rlp }
}

/** {@link rpcHeaderWithRlp} without the RLP. */
export function headerFromRpc(json: unknown): HashedHeader {
  return rpcHeaderWithRlp(json).header
}

/** Minimal big-endian bytes of a quantity, as RLP wants them (zero is the empty string). */
export function quantityToRlpHex(value: bigint): Hex {
  if (value === 0n) return '0x'
  const hex = value.toString(16)
  return `0x${hex.length % 2 ? '0' : ''}${hex}`
}

/**
 * The fields a header has, in RLP order, up to its last one, as [kind, value] pairs.
 * Throws {@link InvalidHeaderError} if a fork field is present without the ones before it.
 */
export function presentHeaderFields(header: BlockHeader): [FieldKind, bigint | Hex][] {
  const present: [FieldKind, bigint | Hex][] = []
  let missing: string | undefined
  for (const [name, kind] of headerFields) {
    const value = header[name]
    if (value === undefined) {
      missing ??= name
      continue
    }
    // Note: RLP fields are positional, so stopping at the gap would silently drop this field
    // and hash a different header.
    if (missing !== undefined)
      throw new InvalidHeaderError({ field: name, value, reason: `present without the fork field "${missing}" before it` })
    present.push([kind, value])
  }
  return present
}

/**
 * The header's RLP list items, in order, ending at the last field the header has.
 * Throws {@link InvalidHeaderError} if a fork field is present without the ones before it.
 */
export function headerToRlpFields(header: BlockHeader): Hex[] {
  return presentHeaderFields(header).map(([kind, value]) => (kind === 'quantity' ? quantityToRlpHex(value as bigint) : (value as Hex)))
}

/** Decodes the RLP list items of a header (as viem's `fromRlp` returns them) into a domain header. */
export function headerFromRlpFields(items: readonly (Hex | Uint8Array | unknown)[]): BlockHeader {
  if (items.length < requiredFieldCount || items.length > headerFields.length)
    throw new InvalidHeaderError({
      field: '(rlp)',
      value: items.length,
      reason: `expected ${requiredFieldCount}–${headerFields.length} items`,
    })
  const header: Record<string, bigint | Hex> = {}
  items.forEach((item, i) => {
    const [name, kind] = headerFields[i] as (typeof headerFields)[number]
    if (Array.isArray(item)) throw new InvalidHeaderError({ field: name, value: '(list)', reason: 'expected a byte string' })
    const hex = item instanceof Uint8Array ? bytesToHexString(item) : item
    if (kind === 'quantity') {
      const bytes = parseBytes(name, hex, undefined)
      if (bytes.startsWith('0x00'))
        throw new InvalidHeaderError({ field: name, value: hex, reason: 'non-canonical quantity (leading zero)' })
      header[name] = bytes === '0x' ? 0n : BigInt(bytes)
    } else {
      header[name] = parseBytes(name, hex, kind === 'data' ? undefined : kind.bytes)
    }
  })
  return header as unknown as BlockHeader
}
