import type { Hex } from './header.js'

// Byte ↔ domain conversions for the hot paths: one native call per field, no per-byte loops
// over hex strings.

/** Lowercase `0x` hex of bytes. */
export function bytesToHexString(bytes: Uint8Array): Hex {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`
}

/** Bytes of a `0x` hex string the caller has already validated (domain values are). */
export function hexStringToBytes(hex: Hex): Uint8Array {
  return Buffer.from(hex.slice(2), 'hex')
}

/** Big-endian unsigned integer of `bytes` (empty: 0). */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  const length = bytes.length
  if (length <= 6) {
    let n = 0
    for (let i = 0; i < length; i++) n = n * 256 + bytes[i]!
    return BigInt(n)
  }
  return BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, length).toString('hex')}`)
}

/** The minimal big-endian bytes of a non-negative quantity, as RLP wants them (0: empty). */
export function bigIntToMinimalBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0)
  if (value <= 0xffff_ffff_ffffn) {
    let n = Number(value)
    let length = 0
    for (let v = n; v > 0; v = Math.floor(v / 256)) length++
    const out = new Uint8Array(length)
    for (let i = length - 1; i >= 0; i--) {
      out[i] = n % 256
      n = Math.floor(n / 256)
    }
    return out
  }
  const hex = value.toString(16)
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex')
}

/** Whether two byte arrays hold the same bytes. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** The bytes of `parts`, one after another. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0
  for (const part of parts) total += part.length
  const out = new Uint8Array(total)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
