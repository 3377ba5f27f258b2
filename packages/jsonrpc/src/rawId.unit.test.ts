import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { objectTokens, parseWithRawStrings, scanRawTokens } from './rawId.js'

describe('scanRawTokens', () => {
  test('default', () => {
    expect(scanRawTokens('{"jsonrpc":"2.0","id":1,"method":"m","params":["0x1"]}')).toEqual([{ id: '1', params: undefined }])
  })

  test.each([
    '123456789012345678901234567890',
    '-123456789012345678901234567890',
    '1.0',
    '1e3',
    '-0.5E-3',
    '"a\\"b\\\\"',
    '"\\u00e9\\n"',
    '"é😀"',
    'null',
    'true',
    '{"a":[1,{"id":2}],"b":"}"}',
    '[1,"]",[]]',
  ])('args: id %s is cut out exactly', (id) => {
    expect(scanRawTokens(`{"method":"m","id":${id},"params":[]}`)[0]!.id).toBe(id)
    expect(scanRawTokens(` {\n\t"id" :  ${id}  \r\n}`)[0]!.id).toBe(id)
  })

  test('behavior: the last duplicate id wins, matched after decoding escapes in keys', () => {
    expect(scanRawTokens('{"id":1,"x":{"id":9},"\\u0069d":2.50,"i\\"d":3}')[0]!.id).toBe('2.50')
    expect(scanRawTokens('{"id":1,"id":"x"}')[0]!.id).toBe('"x"')
  })

  test('behavior: absent id, non-objects and batches', () => {
    expect(scanRawTokens('{"method":"m"}')).toEqual([{ id: undefined, params: undefined }])
    expect(scanRawTokens('"id"')).toEqual([{ id: undefined, params: undefined }])
    expect(scanRawTokens('[]')).toEqual([])
    expect(scanRawTokens(' [ 1 , {"id":7} , "{\\"id\\":1}" , [{"id":3}] , {} ] ').map((t) => t.id)).toEqual([
      undefined,
      '7',
      undefined,
      undefined,
      undefined,
    ])
  })

  test('behavior: params text is kept only when it holds a backslash', () => {
    expect(scanRawTokens('{"params":["0x1"],"id":"\\n"}')[0]!.params).toBeUndefined()
    expect(scanRawTokens('{"params":["0x\\u0031"]}')[0]!.params).toBe('["0x\\u0031"]')
  })

  test('behavior: agrees with JSON.parse on arbitrary objects', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.dictionary(fc.oneof(fc.constantFrom('id', 'params'), fc.string()), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
          {
            maxLength: 4,
          },
        ),
        fc.boolean(),
        (objects, pretty) => {
          const text = JSON.stringify(objects, null, pretty ? 2 : undefined)
          const ids = scanRawTokens(text).map((t) => (t.id === undefined ? undefined : JSON.parse(t.id)))
          expect(ids).toEqual((JSON.parse(text) as Record<string, unknown>[]).map((o) => o.id))
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('objectTokens', () => {
  const idText = fc.oneof(
    fc.jsonValue({ maxDepth: 1 }).map((v) => JSON.stringify(v)),
    fc.constantFrom('1.0', '1e3', '-0', '0.50', '10E-1', '123456789012345678901234567890', '"\\u0041"', '"id"', '"\\"id\\""', 'null', 'true', 'false', '[1]', '{"id":2}'),
  )
  const other = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
    fc.constantFrom('"id"', '{"id":3}', '[{"id":4}]', '"\\u0069d"', '"a\\\\"'),
  )
  const space = fc.constantFrom('', ' ', '\n  ', '\t')
  const member = fc.tuple(fc.constantFrom('"id"', '"params"', '"method"', '"\\u0069d"', '"x"'), space, fc.oneof(idText, other), space).map(([k, a, v, b]) => `${k}${a}:${a}${v}${b}`)
  const objectText = fc.array(member, { maxLength: 5 }).map((members) => `{${members.join(',')}}`)

  test('behavior: for every request object, the tokens the scan finds, with or without a scan', () => {
    let quick = 0
    fc.assert(
      fc.property(fc.oneof(objectText, fc.dictionary(fc.oneof(fc.constant('id'), fc.string()), fc.jsonValue({ maxDepth: 2 })).map((o) => JSON.stringify(o))), (text) => {
        let value: unknown
        try {
          value = JSON.parse(text)
        } catch {
          return
        }
        if (!text.includes('\\')) quick++
        expect(objectTokens(text, value as Record<string, unknown>)).toEqual(scanRawTokens(text)[0])
      }),
      { numRuns: 3000 },
    )
    expect(quick).toBeGreaterThan(500)
  })

  test('args: a number id keeps its text; a second "id" anywhere falls back to the scan', () => {
    expect(objectTokens('{"id": 1.50 ,"method":"m"}', { id: 1.5, method: 'm' })).toEqual({ id: '1.50', params: undefined })
    const nested = '{"params":[{"id":2}],"id":1e0}'
    expect(objectTokens(nested, JSON.parse(nested) as Record<string, unknown>)).toEqual({ id: '1e0', params: undefined })
  })
})

describe('parseWithRawStrings', () => {
  test('default: strings keep their escapes undecoded', () => {
    expect(parseWithRawStrings('["0x\\u0031", "a\\"b", 1, {"k\\n": "\\\\"}]')).toEqual([
      '0x\\u0031',
      'a\\"b',
      1,
      { 'k\\n': '\\\\' },
    ])
  })
})
