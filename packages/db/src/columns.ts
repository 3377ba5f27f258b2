import { type Hex, hexDataPattern } from '@uncle-rpc/chain'
import { type SQL, sql } from 'drizzle-orm'
import { customType } from 'drizzle-orm/pg-core'
import { InvalidColumnValueError } from './errors.js'

// The one place where domain values (Hex, bigint) meet their Postgres forms (bytea, numeric).
// The bulk writers in queries/ use the same converters as the column types (COPY text: copyText.ts).

function expectByteaHex(value: Hex): void {
  if (!hexDataPattern.test(value))
    throw new InvalidColumnValueError('bytea', `expected 0x-prefixed even-length hex, got ${value.slice(0, 80)}`)
}

/** `0x…` hex → bytea bytes. Throws on anything that is not even-length hex. */
export function hexToBytea(value: Hex): Buffer {
  expectByteaHex(value)
  return Buffer.from(value.slice(2), 'hex')
}

/**
 * `0x…` hex → bytea's hex input as written inside an array literal or COPY text: `\\x…`, the
 * backslash escaped (both unescape it to `\x…`). Throws on anything that is not even-length hex.
 */
export function hexToByteaText(value: Hex): string {
  expectByteaHex(value)
  return `\\\\x${value.slice(2)}`
}

/** bytea bytes → lowercase `0x…` hex (the domain form). */
export function byteaToHex(value: Buffer): Hex {
  return `0x${value.toString('hex')}`
}

/** A bytea column (or expression) as lowercase `0x…` text in SQL: byteaToHex done by Postgres. */
export function byteaHexSql(column: unknown): SQL<Hex> {
  return sql<Hex>`'0x' || encode(${column}, 'hex')`
}

/** Largest value of numeric(78,0): 78 decimal digits hold every uint256. */
const maxNumeric = 10n ** 78n - 1n

/** bigint → numeric(78,0) text. Throws outside 0..10^78-1 (uint256 fits). */
export function bigintToNumeric(value: bigint): string {
  if (value < 0n || value > maxNumeric) throw new InvalidColumnValueError('numeric(78,0)', `out of range: ${value}`)
  return value.toString()
}

/** bigint → int8 (bigint column) text. Throws outside the signed 64-bit range. */
export function bigintToInt8(value: bigint): string {
  return BigInt.asIntN(64, value) === value ? value.toString() : outOfRange('bigint', value)
}

/** numeric text (as node-postgres returns it) → bigint. */
export function numericToBigint(value: string): bigint {
  return BigInt(value)
}

/** `bytea` column holding a byte string, read and written as lowercase `0x…` {@link Hex}. */
export const bytea = customType<{ data: Hex; driverData: Buffer }>({
  dataType: () => 'bytea',
  toDriver: hexToBytea,
  fromDriver: byteaToHex,
})

/** `numeric(78,0)` column holding an unsigned 256-bit quantity, read and written as bigint. */
export const uint256 = customType<{ data: bigint; driverData: string }>({
  dataType: () => 'numeric(78, 0)',
  toDriver: bigintToNumeric,
  fromDriver: (value) => numericToBigint(String(value)),
})

// Bulk writes send each column as one array parameter. Building the array literal here, from
// the domain values, skips node-postgres's Hex → Buffer → hex round trip and checks int ranges.

function quoteElement(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`
}

const elementEncoders: Record<string, (value: never) => string> = {
  bytea: hexToByteaText,
  'numeric(78, 0)': bigintToNumeric,
  bigint: bigintToInt8,
  integer: (value: number) =>
    Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31 ? String(value) : outOfRange('integer', value),
  smallint: (value: number) =>
    Number.isInteger(value) && value >= -32768 && value <= 32767 ? String(value) : outOfRange('smallint', value),
  text: (value: string) => quoteElement(value),
}

function outOfRange(type: string, value: unknown): never {
  throw new InvalidColumnValueError(type, `out of range: ${String(value)}`)
}

/**
 * The values of a column of SQL type `sqlType` (as drizzle's `getSQLType()` names it) as one
 * Postgres array literal, `{…}`; null and undefined become NULL. For `unnest($1::type[])` writes.
 */
export function toArrayLiteral(sqlType: string, values: readonly unknown[]): string {
  const encode = elementEncoders[sqlType] as ((value: unknown) => string) | undefined
  if (!encode) throw new InvalidColumnValueError(sqlType, 'no array encoding for this column type')
  let literal = '{'
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    if (i > 0) literal += ','
    literal += value === null || value === undefined ? 'NULL' : encode(value)
  }
  return `${literal}}`
}
