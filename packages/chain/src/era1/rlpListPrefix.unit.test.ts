import { hexToBytes, toRlp } from 'viem'
import { expect, test } from 'vitest'
import { isWholeRlpList, rlpListPrefix } from './rlpListPrefix.js'

const rlp = (value: Parameters<typeof toRlp>[0]) => hexToBytes(toRlp(value))

test('default: short and long list prefixes', () => {
  expect(rlpListPrefix(rlp([]))).toEqual({ prefixLength: 1, payloadLength: 0 })
  expect(rlpListPrefix(rlp([`0x${'00'.repeat(54)}`]))).toEqual({ prefixLength: 1, payloadLength: 55 })
  expect(rlpListPrefix(rlp([`0x${'00'.repeat(55)}`]))).toEqual({ prefixLength: 2, payloadLength: 56 })
  expect(rlpListPrefix(rlp([`0x${'00'.repeat(70_000)}`]))).toEqual({ prefixLength: 4, payloadLength: 70_004 })
})

test('behavior: isWholeRlpList checks the prefix against the length', () => {
  const list = rlp([[], ['0x01', '0x0203']])
  expect(isWholeRlpList(list)).toBe(true)
  expect(isWholeRlpList(list.subarray(0, list.length - 1))).toBe(false)
  expect(isWholeRlpList(Uint8Array.of(...list, 0))).toBe(false)
  expect(isWholeRlpList(new Uint8Array(0))).toBe(false)
  expect(isWholeRlpList(rlp('0x1234'))).toBe(false)
  expect(isWholeRlpList(Uint8Array.of(0xf9, 0x01))).toBe(false)
})
