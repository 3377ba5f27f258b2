import fc from 'fast-check'
import { type Hex, hexToBytes, keccak256, toRlp } from 'viem'
import { expect, test } from 'vitest'
import { postMergeHeaderJson } from './_test/postMergeHeader.js'
import { headerFromRpc, headerToRlpFields } from './codecs.js'
import type { BlockHeader } from './header.js'
import { decodeHeaderBytes, encodeHeaderBytes, encodeRlpListOf, headerFieldIndex, headerFromBytes } from './headerBytes.js'
import { hashesReady } from './hashes.js'

const bytesArb = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex)
const quantityArb = fc.oneof(fc.bigInt({ min: 0n, max: 300n }), fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }))

/** A header with a random number (0–6) of fork fields, in order. */
const headerArb: fc.Arbitrary<BlockHeader> = fc
  .record({
    parentHash: bytesArb(32),
    sha3Uncles: bytesArb(32),
    miner: bytesArb(20),
    stateRoot: bytesArb(32),
    transactionsRoot: bytesArb(32),
    receiptsRoot: bytesArb(32),
    logsBloom: bytesArb(256),
    difficulty: quantityArb,
    number: quantityArb,
    gasLimit: quantityArb,
    gasUsed: quantityArb,
    timestamp: quantityArb,
    extraData: fc.integer({ min: 0, max: 97 }).chain(bytesArb),
    mixHash: bytesArb(32),
    nonce: bytesArb(8),
    baseFeePerGas: quantityArb,
    withdrawalsRoot: bytesArb(32),
    blobGasUsed: quantityArb,
    excessBlobGas: quantityArb,
    parentBeaconBlockRoot: bytesArb(32),
    requestsHash: bytesArb(32),
    forks: fc.integer({ min: 0, max: 6 }),
  })
  .map(({ forks, ...all }) => {
    const names = ['baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash'] as const
    const header: Record<string, unknown> = { ...all }
    for (const name of names.slice(forks)) delete header[name]
    return header as BlockHeader
  })

test('behavior: encodeHeaderBytes is viem’s RLP, and decoding gives the header and its hash back', async () => {
  await hashesReady()
  fc.assert(
    fc.property(headerArb, (header) => {
      const reference = toRlp(headerToRlpFields(header))
      const bytes = encodeHeaderBytes(header)
      expect(Buffer.from(bytes).toString('hex')).toBe(reference.slice(2))
      const decoded = decodeHeaderBytes(bytes)
      expect(headerFromBytes(decoded)).toEqual({ ...header, hash: keccak256(reference) })
      expect(decoded.fields[headerFieldIndex.number]).toEqual(hexToBytes(headerToRlpFields(header)[8]!))
    }),
    { numRuns: 300 },
  )
})

test('behavior: decodes a header inside a larger buffer (an uncle list) by offset', () => {
  const header = headerFromRpc(postMergeHeaderJson)
  const one = encodeHeaderBytes(header)
  const list = encodeRlpListOf([one, one])
  expect(Buffer.from(list).toString('hex')).toBe(toRlp([headerToRlpFields(header), headerToRlpFields(header)]).slice(2))
  const second = decodeHeaderBytes(list, list.length - one.length)
  expect(second.rlp).toEqual(one)
})

// Re-encode a header with one item replaced by raw RLP bytes (for non-canonical forms).
function withItem(header: BlockHeader, index: number, item: string): Uint8Array {
  const items = headerToRlpFields(header).map((f) => toRlp(f).slice(2))
  items[index] = item
  const payload = items.join('')
  const length = payload.length / 2
  return hexToBytes(`0xf9${length.toString(16).padStart(4, '0')}${payload}`)
}

test('error: non-canonical or malformed headers are refused, so stored bytes always hash like the decoded values', () => {
  const header = headerFromRpc(postMergeHeaderJson)
  const refused = (bytes: Uint8Array) => {
    try {
      decodeHeaderBytes(bytes)
    } catch (error) {
      return (error as Error).message.split('\n')[0]
    }
    return 'accepted'
  }
  expect({
    leadingZeroQuantity: refused(withItem(header, 9, '84' + '0001c9c3')),
    singleByteAsString: refused(withItem(header, 8, '8101')),
    longFormShortString: refused(withItem(header, 12, 'b80100')),
    shortHash: refused(withItem(header, 0, `9f${'44'.repeat(31)}`)),
    listAsField: refused(withItem(header, 12, 'c0')),
    tooFewItems: refused(hexToBytes(toRlp(headerToRlpFields(header).slice(0, 14)))),
    truncated: refused(encodeHeaderBytes(header).subarray(0, 100)),
    notAList: refused(hexToBytes(toRlp('0x1234'))),
  }).toMatchInlineSnapshot(`
    {
      "leadingZeroQuantity": "Invalid header field "gasLimit": non-canonical quantity (leading zero or over 32 bytes)",
      "listAsField": "Invalid header field "extraData": expected a byte string",
      "longFormShortString": "Invalid RLP at byte 461: long form used for a length of 1",
      "notAList": "Invalid RLP at byte 0: expected a header list, found a byte string",
      "shortHash": "Invalid header field "parentHash": expected 32 bytes",
      "singleByteAsString": "Invalid RLP at byte 449: single byte below 0x80 must be encoded as itself",
      "tooFewItems": "Invalid header field "(rlp)": expected 15–21 items",
      "truncated": "Invalid RLP at byte 0: item of 606 bytes runs past the end (97 left)",
    }
  `)
})
