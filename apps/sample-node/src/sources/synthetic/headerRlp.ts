import { createKeccak as createWasmKeccak } from 'hash-wasm'

// A byte-level header RLP encoder and a WebAssembly keccak: the synthetic generator hashes
// every header of a chain at startup, and viem's hex-string path (~10k headers/s here) would
// make a mainnet-length chain take half an hour. Tests check the result against hashHeader.

/** A header while it is being generated: byte strings as bytes, small quantities as numbers. */
export type RawHeader = {
  parentHash: Uint8Array
  sha3Uncles: Uint8Array
  miner: Uint8Array
  stateRoot: Uint8Array
  transactionsRoot: Uint8Array
  receiptsRoot: Uint8Array
  logsBloom: Uint8Array
  difficulty: bigint
  number: number
  gasLimit: number
  gasUsed: number
  timestamp: number
  extraData: Uint8Array
  mixHash: Uint8Array
  nonce: Uint8Array
  baseFeePerGas: bigint | undefined
}

/** keccak256 of bytes. The returned array is a fresh copy. */
export type Keccak = (data: Uint8Array) => Uint8Array

/** A keccak256 backed by hash-wasm (about 20× faster than the pure-JS one here). */
export async function createKeccak(): Promise<Keccak> {
  const hasher = await createWasmKeccak(256)
  return (data) => hasher.init().update(data).digest('binary')
}

/** Longest header RLP we ever write (London header with 32 bytes of extraData is ~560). */
export const maxHeaderRlpLength = 1024

function writeString(out: Uint8Array, pos: number, bytes: Uint8Array): number {
  const length = bytes.length
  let p = pos
  if (length === 1 && (bytes[0] as number) < 0x80) {
    out[p] = bytes[0] as number
    return p + 1
  }
  if (length <= 55) out[p++] = 0x80 + length
  else if (length < 256) {
    out[p++] = 0xb8
    out[p++] = length
  } else {
    out[p++] = 0xb9
    out[p++] = length >>> 8
    out[p++] = length & 0xff
  }
  out.set(bytes, p)
  return p + length
}

function writeUint(out: Uint8Array, pos: number, value: number): number {
  if (value === 0) {
    out[pos] = 0x80
    return pos + 1
  }
  if (value < 0x80) {
    out[pos] = value
    return pos + 1
  }
  let length = 0
  for (let v = value; v > 0; v = Math.floor(v / 256)) length++
  out[pos] = 0x80 + length
  let v = value
  for (let i = length; i > 0; i--) {
    out[pos + i] = v % 256
    v = Math.floor(v / 256)
  }
  return pos + 1 + length
}

function writeBigUint(out: Uint8Array, pos: number, value: bigint): number {
  if (value <= 0x1f_ffff_ffff_ffffn) return writeUint(out, pos, Number(value))
  let hex = value.toString(16)
  if (hex.length % 2) hex = `0${hex}`
  const length = hex.length / 2
  out[pos] = 0x80 + length
  for (let i = 0; i < length; i++) out[pos + 1 + i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return pos + 1 + length
}

/**
 * Writes RLP(header) into `out` (at least {@link maxHeaderRlpLength} bytes) and returns its
 * length. Field order and encodings are those of packages/chain `headerRlp`.
 */
export function encodeHeaderRlp(header: RawHeader, out: Uint8Array): number {
  // Note: every header payload is 256–65535 bytes (the bloom alone is 259), so the list
  // prefix is always 0xf9 plus two length bytes.
  let p = 3
  p = writeString(out, p, header.parentHash)
  p = writeString(out, p, header.sha3Uncles)
  p = writeString(out, p, header.miner)
  p = writeString(out, p, header.stateRoot)
  p = writeString(out, p, header.transactionsRoot)
  p = writeString(out, p, header.receiptsRoot)
  p = writeString(out, p, header.logsBloom)
  p = writeBigUint(out, p, header.difficulty)
  p = writeUint(out, p, header.number)
  p = writeUint(out, p, header.gasLimit)
  p = writeUint(out, p, header.gasUsed)
  p = writeUint(out, p, header.timestamp)
  p = writeString(out, p, header.extraData)
  p = writeString(out, p, header.mixHash)
  p = writeString(out, p, header.nonce)
  if (header.baseFeePerGas !== undefined) p = writeBigUint(out, p, header.baseFeePerGas)
  const payload = p - 3
  out[0] = 0xf9
  out[1] = payload >>> 8
  out[2] = payload & 0xff
  return p
}

/** Writes the prefix of an RLP list with the given payload length; returns the bytes written. */
export function writeListPrefix(out: Uint8Array, pos: number, payloadLength: number): number {
  if (payloadLength < 56) {
    out[pos] = 0xc0 + payloadLength
    return 1
  }
  let length = 0
  for (let v = payloadLength; v > 0; v = Math.floor(v / 256)) length++
  out[pos] = 0xf7 + length
  let v = payloadLength
  for (let i = length; i > 0; i--) {
    out[pos + i] = v % 256
    v = Math.floor(v / 256)
  }
  return 1 + length
}
