import { describe, expect, test } from 'vitest'
import { bigintToInt8, bigintToNumeric, byteaToHex, hexToBytea, hexToByteaText, numericToBigint, toArrayLiteral } from './columns.js'
import { copyBytea, copyInt8, copyNull, copyNumeric, copyText } from './copyText.js'

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

describe('hexToByteaText', () => {
  test('default: bytea hex input with its backslash escaped', () => {
    expect(hexToByteaText('0x00ff10')).toBe('\\\\x00ff10')
    expect(hexToByteaText('0x')).toBe('\\\\x')
  })

  test('error: not even-length 0x hex', () => {
    expect(() => hexToByteaText('0xabc')).toThrow('Cannot store value as bytea: expected 0x-prefixed even-length hex, got 0xabc')
    expect(() => hexToByteaText('0xzz')).toThrow('Cannot store value as bytea')
  })
})

describe('bigintToInt8', () => {
  test('default', () => {
    expect([bigintToInt8(0n), bigintToInt8(-(2n ** 63n)), bigintToInt8(2n ** 63n - 1n)]).toEqual(['0', '-9223372036854775808', '9223372036854775807'])
  })

  test('error: out of range', () => {
    expect(() => bigintToInt8(2n ** 63n)).toThrow('Cannot store value as bigint: out of range: 9223372036854775808')
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

describe('COPY text fields', () => {
  test('default: bytea, numeric and int8 as the column codecs write them; undefined is \\N', () => {
    expect(copyNull).toBe('\\N')
    expect([copyBytea('0xab'), copyBytea(undefined)]).toEqual(['\\\\xab', '\\N'])
    expect([copyNumeric(2n ** 256n - 1n), copyNumeric(undefined)]).toEqual([(2n ** 256n - 1n).toString(), '\\N'])
    expect(copyInt8(8191n)).toBe('8191')
  })

  test('behavior: text escapes backslash, tab, newline and carriage return, and only those', () => {
    expect(copyText('mainnet')).toBe('mainnet')
    expect(copyText('a\\b\tc\nd\re "f"')).toBe('a\\\\b\\tc\\nd\\re "f"')
    expect(copyText('\\N')).toBe('\\\\N')
  })

  test('error: values that do not fit fail before anything is sent', () => {
    expect(() => copyBytea('0x1')).toThrow('Cannot store value as bytea')
    expect(() => copyNumeric(-1n)).toThrow('Cannot store value as numeric(78,0): out of range: -1')
    expect(() => copyInt8(2n ** 64n)).toThrow('Cannot store value as bigint: out of range')
  })
})
