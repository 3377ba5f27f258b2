import { describe, expect, test } from 'vitest'
import { goHtmlEscape, goJsonString, goJsonStringify } from './goJson.js'

describe('goJsonString', () => {
  test('default: like JSON.stringify for plain text', () => {
    expect(goJsonString('missing value for required argument 0')).toBe('"missing value for required argument 0"')
    expect(goJsonString('hex string "0x"')).toBe('"hex string \\"0x\\""')
  })

  test('behavior: escapes <, >, &, U+2028, U+2029 as Go does', () => {
    expect(goJsonString('hex number > 64 bits')).toBe('"hex number \\u003e 64 bits"')
    expect(goJsonString('<a&b>\u2028\u2029')).toBe('"\\u003ca\\u0026b\\u003e\\u2028\\u2029"')
  })

  test('behavior: control characters as Go >= 1.22 writes them', () => {
    expect(goJsonString('\b\f\n\r\t\u0001\u001f\u007f')).toBe('"\\b\\f\\n\\r\\t\\u0001\\u001f\u007f"')
  })

  test('behavior: a lone surrogate becomes a raw U+FFFD; pairs stay raw', () => {
    expect(goJsonString('a\uD800b')).toBe('"a\uFFFDb"')
    expect(goJsonString('\uDC00')).toBe('"\uFFFD"')
    expect(goJsonString('😀')).toBe('"😀"')
  })

  test('behavior: an escaped backslash before text that looks like an escape is left alone', () => {
    expect(goJsonString('\\ud800 \\<')).toBe('"\\\\ud800 \\\\\\u003c"')
  })
})

describe('goJsonStringify', () => {
  test('default', () => {
    expect(goJsonStringify({ b: ['<', 1.5, null, true], a: 1e21 })).toBe('{"b":["\\u003c",1.5,null,true],"a":1e+21}')
    expect(goJsonStringify(undefined)).toBeUndefined()
  })

  test('error: bigint throws like JSON.stringify', () => {
    expect(() => goJsonStringify({ n: 1n })).toThrow(TypeError)
  })
})

describe('goHtmlEscape', () => {
  test('default: what Go compact does to a raw message', () => {
    expect(goHtmlEscape('"a<b>&c\u2028"')).toBe('"a\\u003cb\\u003e\\u0026c\\u2028"')
    expect(goHtmlEscape('"\\ud800"')).toBe('"\\ud800"')
    expect(goHtmlEscape('123')).toBe('123')
  })
})
