import { describe, expect, test } from 'vitest'
import { bigintToNumeric, byteaToHex, hexToBytea, numericToBigint, toArrayLiteral } from './columns.js'

describe('hexToBytea / byteaToHex', () => {
  test('default', () => {
    expect(byteaToHex(hexToBytea('0x00ff10'))).toBe('0x00ff10')
    expect(byteaToHex(hexToBytea('0x'))).toBe('0x')
  })

  test('behavior: reads back lower case', () => {
    expect(byteaToHex(hexToBytea('0xABcd'))).toBe('0xabcd')
  })

  test('error: not even-length 0x hex', () => {
    expect(() => hexToBytea('0xabc')).toThrowErrorMatchingInlineSnapshot(
      `[InvalidColumnValueError: Cannot store value as bytea: expected 0x-prefixed even-length hex, got 0xabc]`,
    )
    expect(() => hexToBytea('abcd' as '0x')).toThrow('Cannot store value as bytea')
    expect(() => hexToBytea('0xzz')).toThrow('Cannot store value as bytea')
  })
})

describe('bigintToNumeric / numericToBigint', () => {
  test('default', () => {
    const big = 2n ** 256n - 1n
    expect(numericToBigint(bigintToNumeric(big))).toBe(big)
    expect(bigintToNumeric(0n)).toBe('0')
  })

  test('error: out of range', () => {
    expect(() => bigintToNumeric(-1n)).toThrow('Cannot store value as numeric(78,0): out of range: -1')
    expect(() => bigintToNumeric(10n ** 78n)).toThrow('out of range')
  })
})

describe('toArrayLiteral', () => {
  test('default', () => {
    expect(toArrayLiteral('bytea', ['0xab', null, '0x'])).toBe('{\\\\xab,NULL,\\\\x}')
    expect(toArrayLiteral('numeric(78, 0)', [2n ** 200n + 1n, undefined])).toBe(`{${2n ** 200n + 1n},NULL}`)
    expect(toArrayLiteral('bigint', [-5n, 2n ** 63n - 1n])).toBe('{-5,9223372036854775807}')
    expect(toArrayLiteral('smallint', [0, 32767])).toBe('{0,32767}')
    expect(toArrayLiteral('integer', [7])).toBe('{7}')
    expect(toArrayLiteral('text', ['mainnet', 'a"b\\c', 'NULL'])).toBe('{"mainnet","a\\"b\\\\c","NULL"}')
    expect(toArrayLiteral('text', [])).toBe('{}')
  })

  test('error: values that do not fit', () => {
    expect(() => toArrayLiteral('bigint', [2n ** 63n])).toThrow('Cannot store value as bigint: out of range')
    expect(() => toArrayLiteral('smallint', [32768])).toThrow('Cannot store value as smallint: out of range')
    expect(() => toArrayLiteral('integer', [1.5])).toThrow('Cannot store value as integer: out of range')
    expect(() => toArrayLiteral('bytea', ['0x1'])).toThrow('Cannot store value as bytea')
    expect(() => toArrayLiteral('jsonb', [{}])).toThrow('no array encoding')
  })
})
