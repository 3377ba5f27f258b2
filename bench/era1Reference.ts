import { createHash } from 'node:crypto'
import { type BlockHeader, type Hex, headerFromRlpFields, headerToRlpFields } from '@uncle-rpc/chain'
import { uncompress } from 'snappyjs'
import { bytesToHex, fromRlp, hexToBytes, keccak256, toRlp } from 'viem'

// The baseline of bench/era1-decode.ts: decoding and verifying an era1 file the way packages/chain
// did before its byte codecs (viem's hex RLP and JS keccak, re-encoding every header to re-hash
// it, a byte-at-a-time CRC, node:crypto sha256 per accumulator node). Kept only to measure
// against; it checks the same things and returns the same summary.

const crcTable = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1
  return c >>> 0
})
function maskedCrc(bytes: Uint8Array): number {
  let crc = 0xffffffff
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8)
  crc = (crc ^ 0xffffffff) >>> 0
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0
}

function unframe(stream: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = []
  for (let pos = 0; pos < stream.length; ) {
    const type = stream[pos]!
    const length = stream[pos + 1]! | (stream[pos + 2]! << 8) | (stream[pos + 3]! << 16)
    const body = stream.subarray(pos + 4, pos + 4 + length)
    pos += 4 + length
    if (type !== 0 && type !== 1) continue
    const data = type === 0 ? uncompress(body.subarray(4)) : body.subarray(4)
    if (maskedCrc(data) !== new DataView(body.buffer, body.byteOffset).getUint32(0, true)) throw new Error('crc')
    parts.push(data)
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
}

const hashHeaderViem = (h: BlockHeader) => keccak256(toRlp(headerToRlpFields(h)))
const sha256 = (a: Uint8Array, b: Uint8Array) => createHash('sha256').update(a).update(b).digest()
function uint256Le(value: bigint): Uint8Array {
  const out = new Uint8Array(32)
  for (let i = 0, v = value; i < 32 && v > 0n; i++, v >>= 8n) out[i] = Number(v & 0xffn)
  return out
}

/** Decodes and verifies every block of an era1 file the old way; returns blocks, uncles and the accumulator root. */
export function referenceVerifyEra1(bytes: Uint8Array): { blocks: number; uncles: number; accumulatorRoot: Hex } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const records = (at: number) => ({ type: view.getUint16(at, true), length: view.getUint32(at + 2, true) })
  const leaves: Uint8Array[] = []
  let uncles = 0
  let previous: { hash: Hex; td: bigint } | undefined
  let storedRoot: Hex = '0x'
  for (let pos = 8; pos < bytes.length; ) {
    const { type, length } = records(pos)
    if (type === 0x07) storedRoot = bytesToHex(bytes.subarray(pos + 8, pos + 40))
    if (type !== 0x03) {
      pos += 8 + length
      continue
    }
    const payloads: Uint8Array[] = []
    for (let k = 0; k < 4; k++) {
      const r = records(pos)
      const data = bytes.subarray(pos + 8, pos + 8 + r.length)
      payloads.push(k < 3 ? unframe(data) : data)
      pos += 8 + r.length
    }
    const [headerRlp, bodyRlp, , tdBytes] = payloads as [Uint8Array, Uint8Array, Uint8Array, Uint8Array]
    const header = { ...headerFromRlpFields(fromRlp(headerRlp, 'hex') as Hex[]), hash: keccak256(headerRlp) }
    if (hashHeaderViem(header) !== header.hash) throw new Error('header hash')
    const body = fromRlp(bodyRlp, 'hex') as unknown as [Hex[], Hex[][]]
    const uncleHeaders = body[1].map((fields) => headerFromRlpFields(fields))
    for (const uncle of uncleHeaders) hashHeaderViem(uncle)
    if (keccak256(toRlp(uncleHeaders.map(headerToRlpFields))) !== header.sha3Uncles) throw new Error('sha3Uncles')
    let td = 0n
    for (let i = 31; i >= 0; i--) td = (td << 8n) | BigInt(tdBytes[i]!)
    if (previous && (header.parentHash !== previous.hash || td !== previous.td + header.difficulty)) throw new Error('link')
    leaves.push(sha256(hexToBytes(header.hash), uint256Le(td)))
    uncles += uncleHeaders.length
    previous = { hash: header.hash, td }
  }
  let layer = leaves
  let zero: Uint8Array = new Uint8Array(32)
  for (let level = 0; level < 13; level++) {
    const next: Uint8Array[] = []
    for (let i = 0; i < layer.length; i += 2) next.push(sha256(layer[i]!, layer[i + 1] ?? zero))
    layer = next
    zero = sha256(zero, zero)
  }
  const root = bytesToHex(sha256(layer[0]!, uint256Le(BigInt(leaves.length))))
  if (root !== storedRoot) throw new Error(`accumulator ${root} != ${storedRoot}`)
  return { blocks: leaves.length, uncles, accumulatorRoot: root }
}
