import { describeWithFixtures, readFixtureJson } from '@uncle-rpc/testing'
import { fromRlp, hexToBytes, toRlp } from 'viem'
import { expect, test } from 'vitest'
import { postMergeHeaderJson } from './_test/postMergeHeader.js'
import { headerFromRlpFields, headerFromRpc, headerToRlpFields, quantityToRlpHex, rpcHeaderWithRlp } from './codecs.js'
import { hashHeader, headerRlp } from './hashHeader.js'
import { bytesToHexString } from './bytes.js'
import type { BlockHeader } from './header.js'

const mainnetHeaders = 'mainnet-era1/mainnet_0-511_headers.json'

/** Header → RLP bytes → header, through viem's RLP codec. */
function rlpRoundTrip(header: BlockHeader): BlockHeader {
  return headerFromRlpFields(fromRlp(toRlp(headerToRlpFields(header)), 'hex') as `0x${string}`[])
}

function withoutHash<T extends { hash: unknown }>({ hash: _, ...rest }: T): Omit<T, 'hash'> {
  return rest
}

test('default: quantityToRlpHex is minimal big-endian, zero is empty', () => {
  expect([0n, 1n, 0x7fn, 0x100n, 0x1388n].map(quantityToRlpHex)).toEqual(['0x', '0x01', '0x7f', '0x0100', '0x1388'])
})

test('behavior: a post-merge header (every fork field through Prague) round-trips RPC → RLP fields → domain', () => {
  const header = headerFromRpc(postMergeHeaderJson)
  expect(header).toMatchObject({ blobGasUsed: 0x20000n, excessBlobGas: 0n, baseFeePerGas: 7n })
  const fields = headerToRlpFields(header)
  expect(fields.length).toBe(21)
  expect(rlpRoundTrip(header)).toEqual(withoutHash(header))
  // byte arrays (fromRlp 'bytes') decode the same as hex
  expect(headerFromRlpFields(fromRlp(headerRlp(header), 'bytes') as Uint8Array[])).toEqual(withoutHash(header))
})

test('behavior: each fork prefix (London … Prague) round-trips and hashes differently', () => {
  const order = ['baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash']
  const hashes = new Set<string>()
  for (let keep = 0; keep <= order.length; keep++) {
    const json: Record<string, string> = { ...postMergeHeaderJson }
    for (const name of order.slice(keep)) delete json[name]
    const header = headerFromRpc(json)
    expect(headerToRlpFields(header).length).toBe(15 + keep)
    expect(rlpRoundTrip(header)).toEqual(withoutHash(header))
    hashes.add(hashHeader(header))
  }
  expect(hashes.size).toBe(order.length + 1)
})

describeWithFixtures([mainnetHeaders], 'mainnet 0–511', () => {
  test('default: every header round-trips through RLP fields unchanged', () => {
    const { headers } = readFixtureJson<{ headers: Record<string, unknown>[] }>(mainnetHeaders)
    for (const json of headers) {
      const header = headerFromRpc(json)
      expect(rlpRoundTrip(header)).toEqual(withoutHash(header))
    }
  })

  test('default: the RLP read with each header is its encoding, and hashes to its hash', () => {
    const { headers } = readFixtureJson<{ headers: Record<string, unknown>[] }>(mainnetHeaders)
    for (const json of headers) {
      const { header, rlp } = rpcHeaderWithRlp(json)
      expect(bytesToHexString(rlp)).toBe(headerRlp(header))
      expect(hashHeader(header)).toBe(header.hash)
    }
  })
})

test('behavior: rpcHeaderWithRlp encodes every fork prefix, odd-length and zero quantities as the domain encoder does', () => {
  const order = ['baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash']
  for (let keep = 0; keep <= order.length; keep++) {
    const json: Record<string, string> = { ...postMergeHeaderJson, difficulty: '0x0', gasUsed: '0xabc', timestamp: '0x7f', gasLimit: '0x80' }
    for (const name of order.slice(keep)) delete json[name]
    const { header, rlp } = rpcHeaderWithRlp(json)
    expect(bytesToHexString(rlp)).toBe(headerRlp(header))
  }
})

test('behavior: mixed-case hex is accepted and lowercased', () => {
  const json = { ...postMergeHeaderJson, miner: `0x${'Ab'.repeat(20)}`, number: '0X1F' }
  const header = headerFromRpc(json)
  expect(header.miner).toBe(`0x${'ab'.repeat(20)}`)
  expect(header.number).toBe(31n)
})

test('error: headerFromRpc rejects malformed fields', () => {
  const bad = (patch: Record<string, unknown>) => () => headerFromRpc({ ...postMergeHeaderJson, ...patch })
  expect(bad({ number: '0x01' })).toThrowErrorMatchingInlineSnapshot(`
    [InvalidHeaderError: Invalid header field "number": expected a hex quantity

    Details: got "0x01"]
  `)
  expect(bad({ miner: '0x1234' })).toThrowErrorMatchingInlineSnapshot(`
    [InvalidHeaderError: Invalid header field "miner": expected 20 bytes

    Details: got "0x1234"]
  `)
  expect(bad({ parentHash: undefined })).toThrowErrorMatchingInlineSnapshot(`
    [InvalidHeaderError: Invalid header field "parentHash": missing

    Details: got undefined]
  `)
  expect(bad({ baseFeePerGas: null })).toThrowErrorMatchingInlineSnapshot(`
    [InvalidHeaderError: Invalid header field "withdrawalsRoot": present without the fork fields before it

    Details: got "0x9999999999999999999999999999999999999999999999999999999999999999"]
  `)
  // Every malformed shape the old regexes refused is still refused, with the same reason.
  for (const number of ['0x', '0x00', '0x0g', '0xg', 'x1', '1', 1, '0x1 ', ' 0x1'])
    expect(bad({ number }), String(number)).toThrow('expected a hex quantity')
  for (const miner of ['0x', `0x${'a'.repeat(39)}`, `0x${'g'.repeat(40)}`, `0y${'a'.repeat(40)}`, `${'a'.repeat(42)}`, 20])
    expect(bad({ miner }), String(miner)).toThrow(/expected (0x-prefixed hex bytes|20 bytes)/)
  expect(bad({ extraData: '0xabc' })).toThrow('expected 0x-prefixed hex bytes')
  expect(bad({ extraData: '0xzz' })).toThrow('expected 0x-prefixed hex bytes')
  expect(bad({ hash: '0x12' })).toThrow('expected 32 bytes')
  expect(() => headerFromRpc([])).toThrowErrorMatchingInlineSnapshot(`
    [InvalidHeaderError: Invalid header field "(object)": expected a block object

    Details: got []]
  `)
})

test('error: a viem-formatted block (bigint fields) is rejected with an InvalidHeaderError, not a TypeError', () => {
  // Regression: the error's details used JSON.stringify, which throws on bigint.
  expect(() => headerFromRpc({ ...postMergeHeaderJson, number: 1n })).toThrowErrorMatchingInlineSnapshot(`
    [InvalidHeaderError: Invalid header field "number": expected a hex quantity

    Details: got 1n]
  `)
})

test('error: headerToRlpFields refuses a fork field without the ones before it', () => {
  // Regression: it stopped at the first absent field, silently dropping later ones (a wrong hash).
  const { baseFeePerGas: _, ...rest } = headerFromRpc(postMergeHeaderJson)
  expect(() => headerToRlpFields(rest)).toThrowErrorMatchingInlineSnapshot(`
    [InvalidHeaderError: Invalid header field "withdrawalsRoot": present without the fork field "baseFeePerGas" before it

    Details: got "0x9999999999999999999999999999999999999999999999999999999999999999"]
  `)
})

test('error: headerFromRlpFields rejects bad RLP items', () => {
  const fields = headerToRlpFields(headerFromRpc(postMergeHeaderJson))
  expect(() => headerFromRlpFields(fields.slice(0, 14))).toThrowErrorMatchingInlineSnapshot(`
    [InvalidHeaderError: Invalid header field "(rlp)": expected 15–21 items

    Details: got 14]
  `)
  expect(() => headerFromRlpFields([...fields, '0x01'])).toThrowError('expected 15–21 items')
  const leadingZero = fields.with(8, '0x0001')
  expect(() => headerFromRlpFields(leadingZero)).toThrowErrorMatchingInlineSnapshot(`
    [InvalidHeaderError: Invalid header field "number": non-canonical quantity (leading zero)

    Details: got "0x0001"]
  `)
  expect(() => headerFromRlpFields(fields.with(2, '0x00'))).toThrowError('Invalid header field "miner": expected 20 bytes')
  expect(() => headerFromRlpFields(fields.with(0, [] as unknown as `0x${string}`))).toThrowError(
    'Invalid header field "parentHash": expected a byte string',
  )
  expect(() => headerFromRlpFields(fields.with(9, 7 as unknown as `0x${string}`))).toThrowError(
    'Invalid header field "gasLimit": expected 0x-prefixed hex bytes',
  )
  expect(headerFromRlpFields(fields.with(8, '0x')).number).toBe(0n)
  expect(hexToBytes(fields[6]!).length).toBe(256)
})
