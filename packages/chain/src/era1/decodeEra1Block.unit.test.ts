import { describeWithFixtures } from '@uncle-rpc/testing'
import { fromRlp, type Hex, hexToBigInt, hexToBytes, keccak256, serializeTransaction, toRlp } from 'viem'
import { expect, test } from 'vitest'
import { ethereumTestsFiles, ethereumTestsHeaderToRpc, readEthereumTestsChains } from '../_test/ethereumTests.js'
import { postMergeHeaderJson } from '../_test/postMergeHeader.js'
import { headerFromRpc, headerToRlpFields } from '../codecs.js'
import { hashHeader } from '../hashHeader.js'
import { hexByteLength } from '../uncleSize.js'
import { decodeEra1Block } from './decodeEra1Block.js'
import { uint256FromLe } from './decodeEra1RawBlock.js'

const tdBytes = (value: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((value >> BigInt(8 * i)) & 0xffn))

test('default: uint256FromLe reads 32 little-endian bytes', () => {
  expect(uint256FromLe(tdBytes(0n))).toBe(0n)
  expect(uint256FromLe(tdBytes(0xffd003ffen))).toBe(0xffd003ffen)
  expect(uint256FromLe(tdBytes(2n ** 256n - 1n))).toBe(2n ** 256n - 1n)
})

describeWithFixtures([...ethereumTestsFiles], 'ethereum/tests blocks (with legacy transactions and uncles)', () => {
  test('default: hash, uncles, transaction hashes and size agree with the test data', () => {
    let txCount = 0
    for (const chain of readEthereumTestsChains())
      for (const block of chain.blocks) {
        const [header, txs, uncles] = fromRlp(block.rlp) as [Hex[], Hex[][], Hex[][]]
        const decoded = decodeEra1Block({
          headerRlp: hexToBytes(toRlp(header)),
          bodyRlp: hexToBytes(toRlp([txs, uncles])),
          totalDifficulty: tdBytes(123n),
        })
        expect(decoded.header).toEqual(headerFromRpc(ethereumTestsHeaderToRpc(block.blockHeader)))
        expect(decoded.uncles).toEqual(block.uncleHeaders.map((u) => headerFromRpc(ethereumTestsHeaderToRpc(u))))
        expect(decoded.size).toBe(hexByteLength(block.rlp))
        expect(decoded.totalDifficulty).toBe(123n)
        // Independently: viem serializes each legacy tx from its JSON fields; the hash is keccak256 of that.
        const expected = block.transactions.map((tx) =>
          keccak256(
            serializeTransaction(
              {
                type: 'legacy',
                nonce: Number(tx.nonce),
                gasPrice: hexToBigInt(tx.gasPrice as Hex),
                gas: hexToBigInt(tx.gasLimit as Hex),
                to: tx.to as Hex,
                value: hexToBigInt(tx.value as Hex),
                data: tx.data as Hex,
              },
              { r: tx.r as Hex, s: tx.s as Hex, v: hexToBigInt(tx.v as Hex) },
            ),
          ),
        )
        expect(decoded.transactionHashes).toEqual(expected)
        txCount += expected.length
      }
    expect(txCount).toBe(15)
  })
})

test('behavior: a typed (EIP-2718) transaction is hashed over its bytes', () => {
  const signed = serializeTransaction(
    {
      type: 'eip1559',
      chainId: 1,
      nonce: 7,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      gas: 21000n,
      to: `0x${'12'.repeat(20)}`,
      value: 1n,
    },
    { r: `0x${'01'.repeat(32)}`, s: `0x${'02'.repeat(32)}`, yParity: 1 },
  )
  const header = headerFromRpc(postMergeHeaderJson)
  const headerRlp = hexToBytes(toRlp(headerToRlpFields(header)))
  const decoded = decodeEra1Block({ headerRlp, bodyRlp: hexToBytes(toRlp([[signed], []])), totalDifficulty: tdBytes(0n) })
  expect(signed.startsWith('0x02')).toBe(true)
  expect(decoded.transactionHashes).toEqual([keccak256(signed)])
  expect(decoded.header.hash).toBe(hashHeader(header))
  expect(decoded.size).toBe(hexByteLength(toRlp([headerToRlpFields(header), [signed], []])))
})

test('error: payloads that are not a header and a [transactions, uncles] body', () => {
  const headerRlp = hexToBytes(toRlp(headerToRlpFields(headerFromRpc(postMergeHeaderJson))))
  const td = tdBytes(0n)
  expect(() =>
    decodeEra1Block({ headerRlp, bodyRlp: hexToBytes(toRlp([[]])), totalDifficulty: td }),
  ).toThrowErrorMatchingInlineSnapshot(`[Era1PayloadError: body has 1 items, expected [transactions, uncles]]`)
  expect(() =>
    decodeEra1Block({ headerRlp, bodyRlp: hexToBytes(toRlp(['0x01', []])), totalDifficulty: td }),
  ).toThrowErrorMatchingInlineSnapshot(`[Era1PayloadError: body transactions is not an RLP list]`)
  expect(() =>
    decodeEra1Block({ headerRlp, bodyRlp: hexToBytes(toRlp([[], ['0x01']])), totalDifficulty: td }),
  ).toThrowErrorMatchingInlineSnapshot(`[RlpDecodeError: Invalid RLP at byte 3: expected a header list, found a byte string]`)
  expect(() =>
    decodeEra1Block({ headerRlp: hexToBytes(toRlp('0x1234')), bodyRlp: hexToBytes(toRlp([[], []])), totalDifficulty: td }),
  ).toThrowErrorMatchingInlineSnapshot(`[RlpDecodeError: Invalid RLP at byte 0: expected a header list, found a byte string]`)
  expect(() =>
    decodeEra1Block({ headerRlp: headerRlp.subarray(1), bodyRlp: hexToBytes(toRlp([[], []])), totalDifficulty: td }),
  ).toThrow()
})
