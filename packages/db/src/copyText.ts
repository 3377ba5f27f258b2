import type { Hex } from '@uncle-rpc/chain'
import { bigintToInt8, bigintToNumeric, hexToByteaText } from './columns.js'

// COPY … FROM STDIN text format: tab-separated fields, one row a line, \N for null. The field
// encoders are the column codecs' (columns.ts); only text needs COPY's own escaping.

/** COPY text's null. */
export const copyNull = '\\N'

/** A bytea field: `\\x…` (see hexToByteaText), or null. Throws on anything that is not even-length hex. */
export function copyBytea(value: Hex | undefined): string {
  return value === undefined ? copyNull : hexToByteaText(value)
}

/** A numeric(78,0) field in decimal, or null. Throws outside 0..10^78-1. */
export function copyNumeric(value: bigint | undefined): string {
  return value === undefined ? copyNull : bigintToNumeric(value)
}

/** An int8 (bigint column) field in decimal. Throws outside the signed 64-bit range. */
export function copyInt8(value: bigint): string {
  return bigintToInt8(value)
}

const textEscapes: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

/** A text field: backslash, tab, newline and carriage return escaped, so they stay inside it. */
export function copyText(text: string): string {
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => textEscapes[c]!) : text
}
