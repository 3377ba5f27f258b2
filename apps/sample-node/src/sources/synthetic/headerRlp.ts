import { writeRlpString } from '@uncle-rpc/chain'

// A header RLP encoder over the generator's raw header: the synthetic generator hashes every
// header of a chain at startup, and viem's hex-string path (~10k headers/s here) would make a
// mainnet-length chain take half an hour. Byte strings and prefixes go through packages/chain's
// RLP writers and the hash through its keccak256Bytes; only the quantities, kept as numbers here,
// are written in place. Tests check the result against packages/chain's headerRlp.

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

/** Longest header RLP we ever write (London header with 32 bytes of extraData is ~560). */
export const maxHeaderRlpLength = 1024

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
  p = writeRlpString(out, p, header.parentHash)
  p = writeRlpString(out, p, header.sha3Uncles)
  p = writeRlpString(out, p, header.miner)
  p = writeRlpString(out, p, header.stateRoot)
  p = writeRlpString(out, p, header.transactionsRoot)
  p = writeRlpString(out, p, header.receiptsRoot)
  p = writeRlpString(out, p, header.logsBloom)
  p = writeBigUint(out, p, header.difficulty)
  p = writeUint(out, p, header.number)
  p = writeUint(out, p, header.gasLimit)
  p = writeUint(out, p, header.gasUsed)
  p = writeUint(out, p, header.timestamp)
  p = writeRlpString(out, p, header.extraData)
  p = writeRlpString(out, p, header.mixHash)
  p = writeRlpString(out, p, header.nonce)
  if (header.baseFeePerGas !== undefined) p = writeBigUint(out, p, header.baseFeePerGas)
  const payload = p - 3
  out[0] = 0xf9
  out[1] = payload >>> 8
  out[2] = payload & 0xff
  return p
}
