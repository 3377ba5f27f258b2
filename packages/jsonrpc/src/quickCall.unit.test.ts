import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { parseJsonMessage } from './parse.js'
import { readQuickCall } from './quickCall.js'

// The quick reader against JSON.parse as the oracle: on any text it reads, it gives exactly what
// the JSON.parse path gives; it reads the spellings clients send; everything else it leaves.

const hex = fc.stringMatching(/^0x[0-9a-fA-F]{0,66}$/)
const member = {
  jsonrpc: fc.constantFrom('"2.0"', '"2.0 "', '"1.0"', '2', '"2.0\\u0000"', 'null'),
  id: fc.oneof(
    fc.nat().map(String),
    fc.constantFrom('0', '00', '01', '-1', '1.0', '1e3', '0x1', '9007199254740993', '123456789012345', '1234567890123456', 'null', 'true', '[]', '{}'),
    fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
    fc.stringMatching(/^[A-Za-z0-9_-]{0,10}$/).map((s) => `"${s}"`),
  ),
  method: fc.oneof(fc.constantFrom('"eth_getUncleByBlockHashAndIndex"', '""', '"a b"', '"eth\\u005fcall"', '1'), fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s))),
  params: fc.oneof(
    fc.tuple(hex, hex).map(([a, b]) => JSON.stringify([a, b])),
    fc.array(fc.oneof(hex, fc.string({ maxLength: 6 })), { maxLength: 3 }).map((a) => JSON.stringify(a)),
    fc.constantFrom('[]', 'null', '{}', '["0x1" ,"0x2"]', '["0x1","0x2",]', '["\\u0030x1","0x0"]'),
  ),
  other: fc.constantFrom('"extra":1', '"ID":1', '"params ":[]'),
}
type Key = keyof typeof member
const key = fc.constantFrom<Key>('jsonrpc', 'id', 'method', 'params', 'other')
const spelled = fc
  .array(key, { minLength: 0, maxLength: 6 })
  .chain((keys) => fc.tuple(...keys.map((k) => (k === 'other' ? member.other : member[k].map((v) => `"${k}":${v}`)))))
  .chain((members) => fc.tuple(fc.constant(members), fc.constantFrom(',', ', ', ' ,'), fc.constantFrom('', ' ', '\n')))
  .map(([members, comma, edge]) => `${edge}{${members.join(comma)}}${edge}`)
// The spelling read here, members in any order.
const canonical = fc
  .tuple(fc.oneof(fc.nat(), fc.stringMatching(/^[A-Za-z0-9_-]{0,10}$/), fc.string({ unit: 'grapheme', maxLength: 10 }).filter((t) => ![...t].some((c) => c === '"' || c === '\\' || c.charCodeAt(0) < 32))), hex.map((h) => h.toLowerCase()), fc.nat({ max: 40 }), fc.shuffledSubarray(['jsonrpc', 'id', 'method', 'params'], { minLength: 4 }))
  .map(([id, hash, index, order]) => {
    const values: Record<string, unknown> = { jsonrpc: '2.0', id, method: 'eth_getUncleByBlockHashAndIndex', params: [hash, `0x${index.toString(16)}`] }
    return JSON.stringify(Object.fromEntries(order.map((k) => [k, values[k]])))
  })
const mutated = fc.tuple(canonical, fc.nat(), fc.constantFrom('', ' ', '"', '\\', ',', '}', '0', 'x', 'é')).map(([text, at, put]) => {
  const i = at % (text.length + 1)
  return text.slice(0, i) + put + text.slice(i + (put === '' ? 1 : 0))
})

describe('readQuickCall', () => {
  test('behavior: whatever it reads, it reads as JSON.parse does; it reads the spellings clients send', () => {
    let read = 0
    fc.assert(
      fc.property(fc.oneof(canonical, spelled, mutated), (text) => {
        const quick = readQuickCall(text)
        if (quick === undefined) return
        read++
        expect(quick).toEqual(parseJsonMessage(text))
      }),
      { numRuns: 20_000 },
    )
    expect(read).toBeGreaterThan(5000)
    fc.assert(
      fc.property(canonical, (text) => {
        expect(readQuickCall(text)).toEqual(parseJsonMessage(text))
      }),
    )
  })

  test('args: what it leaves to JSON.parse', () => {
    const call = '{"jsonrpc":"2.0","id":1,"method":"m","params":["0x1","0x2"]}'
    expect(readQuickCall(call)).toEqual({ kind: 'single', entry: { value: { jsonrpc: '2.0', id: 1, method: 'm', params: ['0x1', '0x2'] }, rawId: '1', rawParams: undefined } })
    for (const text of [
      `[${call}]`,
      call.replace(',"id":1', ',"id":1,"id":2'),
      call.replace('"id":1', '"id":1.0'),
      call.replace('"id":1', '"id":"a\\"b"'),
      call.replace('"0x1"', '"0x\\u0031"'),
      call.replace('"0x1"', '"0x\t1"'),
      call.replace(',"id":1', ''),
      call.replace('"2.0"', '"2.0" '),
      call.replace('["0x1","0x2"]', '["0x1"]'),
      call.replace('"m"', '"m\\u0041"'),
      `${call} `,
    ])
      expect(readQuickCall(text)).toBeUndefined()
    // A string without escapes is its own text, whatever its characters.
    for (const text of [call.replace('"id":1', '"id":"a b<é>"'), call.replace('"m"', '"m,\\u"'.replace('\\u', ']')), call.replace('"0x1"', '"a,b"')])
      expect(readQuickCall(text)).toEqual(parseJsonMessage(text))
  })
})
