import { type BlockHeader, headerRlp, keccak256Bytes } from '@uncle-rpc/chain'
import { keccak256 } from 'viem'
import { describe, expect, test } from 'vitest'
import { encodeHeaderRlp, maxHeaderRlpLength, type RawHeader } from './headerRlp.js'
import { materializeHeader, toHex } from './materialize.js'

const bytes = (length: number, fill: number) => new Uint8Array(length).fill(fill)

function raw(overrides: Partial<RawHeader>): RawHeader {
  return {
    parentHash: bytes(32, 1),
    sha3Uncles: bytes(32, 2),
    miner: bytes(20, 3),
    stateRoot: bytes(32, 4),
    transactionsRoot: bytes(32, 5),
    receiptsRoot: bytes(32, 6),
    logsBloom: bytes(256, 0),
    difficulty: 131_072n,
    number: 1,
    gasLimit: 5000,
    gasUsed: 0,
    timestamp: 1_438_269_988,
    extraData: new Uint8Array(0),
    mixHash: bytes(32, 7),
    nonce: bytes(8, 8),
    baseFeePerGas: undefined,
    ...overrides,
  }
}

describe('encodeHeaderRlp', () => {
  const cases: [string, Partial<RawHeader>][] = [
    ['default', {}],
    ['args: zero quantities', { difficulty: 0n, number: 0, gasLimit: 0, timestamp: 0 }],
    ['args: one-byte quantities at the 0x7f/0x80 edge', { number: 0x7f, gasUsed: 0x80, gasLimit: 0xff, timestamp: 0x100 }],
    ['args: extraData of one byte below 0x80', { extraData: Uint8Array.of(0x42) }],
    ['args: extraData of one byte at 0x80', { extraData: Uint8Array.of(0x80) }],
    ['args: 32 bytes of extraData and a bloom full of ones', { extraData: bytes(32, 0xee), logsBloom: bytes(256, 0xff) }],
    ['args: quantities above 2^53', { difficulty: 2n ** 70n + 3n, number: 2 ** 40 + 1, baseFeePerGas: 2n ** 64n - 1n }],
    ['args: London base fee of zero', { baseFeePerGas: 0n }],
  ]
  test.each(cases)('%s: same bytes as packages/chain headerRlp', (_, overrides) => {
    const header = raw(overrides)
    const out = new Uint8Array(maxHeaderRlpLength)
    const length = encodeHeaderRlp(header, out)
    const domain = materializeHeader({ raw: header, hash: bytes(32, 0), rlpLength: length }) as BlockHeader
    expect(toHex(out.subarray(0, length))).toBe(headerRlp(domain))
    expect(toHex(keccak256Bytes(out.subarray(0, length)))).toBe(keccak256(headerRlp(domain)))
  })
})
