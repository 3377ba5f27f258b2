import { type ByteArray, bytesToHex, hexToBigInt } from 'viem'
import { InvalidHeaderError, InvalidQuantityError } from './errors.js'
import { type BlockHeader, type FieldKind, type HashedHeader, type Hex, headerFields, requiredFieldCount } from './header.js'

// The one place where wire (JSON-RPC) and RLP forms of a header meet the domain form.

const quantityRe = /^0x(0|[1-9a-f][0-9a-f]*)$/i
const dataRe = /^0x([0-9a-f]{2})*$/i

function readQuantity(value: unknown): bigint | undefined {
  return typeof value === 'string' && quantityRe.test(value) ? hexToBigInt(value as Hex) : undefined
}

function parseQuantity(field: string, value: unknown): bigint {
  const quantity = readQuantity(value)
  if (quantity === undefined) throw new InvalidHeaderError({ field, value, reason: 'expected a hex quantity' })
  return quantity
}

/** A JSON-RPC quantity (`0x…`, no leading zeros) outside a header → bigint; `what` names it in the InvalidQuantityError. */
export function quantityFromRpc(what: string, value: unknown): bigint {
  const quantity = readQuantity(value)
  if (quantity === undefined) throw new InvalidQuantityError(what, value)
  return quantity
}

function parseBytes(field: string, value: unknown, size: number | undefined): Hex {
  if (typeof value !== 'string' || !dataRe.test(value))
    throw new InvalidHeaderError({ field, value, reason: 'expected 0x-prefixed hex bytes' })
  if (size !== undefined && value.length !== 2 + size * 2)
    throw new InvalidHeaderError({ field, value, reason: `expected ${size} bytes` })
  return value.toLowerCase() as Hex
}

/**
 * Decodes a node's JSON block or uncle object (as `eth_getBlockBy*` or
 * `eth_getUncleBy*` return it) into a domain header with its claimed hash.
 * Keys that are not header fields (size, totalDifficulty, transactions…) are ignored.
 */
export function headerFromRpc(json: unknown): HashedHeader {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new InvalidHeaderError({ field: '(object)', value: json, reason: 'expected a block object' })
  const obj = json as Record<string, unknown>
  const header: Record<string, bigint | Hex> = {}
  let optionalSeen = true
  for (const [index, [name, kind]] of headerFields.entries()) {
    const value = obj[name]
    if (value === undefined || value === null) {
      if (index < requiredFieldCount) throw new InvalidHeaderError({ field: name, value, reason: 'missing' })
      optionalSeen = false
      continue
    }
    if (!optionalSeen) throw new InvalidHeaderError({ field: name, value, reason: 'present without the fork fields before it' })
    header[name] =
      kind === 'quantity' ? parseQuantity(name, value) : parseBytes(name, value, kind === 'data' ? undefined : kind.bytes)
  }
  const hash = parseBytes('hash', obj.hash, 32)
  return { ...(header as unknown as BlockHeader), hash }
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
export function headerFromRlpFields(items: readonly (Hex | ByteArray | unknown)[]): BlockHeader {
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
    const hex = item instanceof Uint8Array ? bytesToHex(item) : item
    if (kind === 'quantity') {
      const bytes = parseBytes(name, hex, undefined)
      if (bytes.startsWith('0x00'))
        throw new InvalidHeaderError({ field: name, value: hex, reason: 'non-canonical quantity (leading zero)' })
      header[name] = bytes === '0x' ? 0n : hexToBigInt(bytes)
    } else {
      header[name] = parseBytes(name, hex, kind === 'data' ? undefined : kind.bytes)
    }
  })
  return header as unknown as BlockHeader
}
