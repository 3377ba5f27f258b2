import { describeWithFixtures } from '@uncle-rpc/testing'
import { toRlp } from 'viem'
import { expect, test } from 'vitest'
import { ethereumTestsFiles, ethereumTestsHeaderToRpc, readEthereumTestsChains } from './_test/ethereumTests.js'
import { headerFromRpc, headerToRlpFields } from './codecs.js'
import { hexByteLength, rlpListLength, uncleSize } from './uncleSize.js'

test('default: rlpListLength matches viem toRlp at every prefix boundary', () => {
  for (const payload of [0, 1, 55, 56, 255, 256, 65535, 65536]) {
    const list = toRlp([`0x${'00'.repeat(payload)}`]) // one string item; its own prefix is counted in the payload
    const itemLength = hexByteLength(toRlp(`0x${'00'.repeat(payload)}`))
    expect(rlpListLength(itemLength)).toBe(hexByteLength(list))
  }
  expect([0, 55, 56, 255, 256, 65535, 65536].map(rlpListLength)).toEqual([1, 56, 58, 257, 259, 65538, 65540])
})

test('default: hexByteLength', () => {
  expect([hexByteLength('0x'), hexByteLength('0x00'), hexByteLength(`0x${'ab'.repeat(32)}`)]).toEqual([0, 1, 32])
})

describeWithFixtures([...ethereumTestsFiles], 'ethereum/tests uncles', () => {
  test('default: uncleSize is the RLP length of [uncle, [], []]', () => {
    for (const chain of readEthereumTestsChains())
      for (const block of chain.blocks)
        for (const json of block.uncleHeaders) {
          const uncle = headerFromRpc(ethereumTestsHeaderToRpc(json))
          expect(uncleSize(uncle)).toBe(hexByteLength(toRlp([headerToRlpFields(uncle), [], []])))
        }
  })
})
