import { describe, expect, test } from 'vitest'
import { parseMessage, readRequest } from './parse.js'
import type { ParsedEntry } from './types.js'

describe('parseMessage', () => {
  test('default', () => {
    expect(parseMessage('{"jsonrpc":"2.0","id":1.0,"method":"m"}')).toEqual({
      kind: 'single',
      entry: { value: { jsonrpc: '2.0', id: 1, method: 'm' }, rawId: '1.0', rawParams: undefined },
    })
  })

  test('args: batches, scalars, bad JSON', () => {
    expect(parseMessage('[1,{"id":"a"}]')).toEqual({
      kind: 'batch',
      entries: [
        { value: 1, rawId: undefined, rawParams: undefined },
        { value: { id: 'a' }, rawId: '"a"', rawParams: undefined },
      ],
    })
    expect(parseMessage('[null]')).toEqual({ kind: 'batch', entries: [{ value: null, rawId: undefined, rawParams: undefined }] })
    expect(parseMessage('"x"')).toEqual({ kind: 'single', entry: { value: 'x', rawId: undefined, rawParams: undefined } })
    for (const text of ['', ' ', '{', '[1,]', '{"a":1}x', 'undefined']) expect(parseMessage(text)).toEqual({ kind: 'parseError' })
  })
})

describe('readRequest', () => {
  const entry = (text: string): ParsedEntry => {
    const message = parseMessage(text)
    if (message.kind !== 'single') throw new Error('expected a single request')
    return message.entry
  }

  test('default: a call and a notification', () => {
    expect(readRequest(entry('{"jsonrpc":"2.0","id":"x","method":"m","params":[1]}'), false)).toEqual({
      kind: 'call',
      method: 'm',
      params: [1],
      rawId: '"x"',
    })
    expect(readRequest(entry('{"jsonrpc":"2.0","method":"m"}'), false)).toEqual({
      kind: 'call',
      method: 'm',
      params: undefined,
      rawId: undefined,
    })
  })

  test.each([
    ['{"jsonrpc":"1.0","id":5,"method":"m"}', '5'],
    ['{"id":5,"method":"m"}', '5'],
    ['{"jsonrpc":2.0,"id":5,"method":"m"}', '5'],
    ['{"jsonrpc":"2.0","id":5,"method":7}', '5'],
    ['{"jsonrpc":"2.0","id":5,"method":""}', '5'],
    ['{"jsonrpc":"2.0","id":null}', 'null'],
    ['{"jsonrpc":"2.0","id":{"a":1},"method":"m"}', 'null'],
    ['{"jsonrpc":"2.0","id":[1],"method":"m"}', 'null'],
    ['{"jsonrpc":"1.0","method":"m"}', 'null'],
    ['{}', 'null'],
    ['1', 'null'],
    ['null', 'null'],
  ])('error: %s is an invalid request answered with id %s', (text, rawId) => {
    expect(readRequest(entry(text), false)).toEqual({ kind: 'invalid', rawId })
  })

  test('behavior: geth ignores response objects sent to it', () => {
    const response = entry('{"jsonrpc":"2.0","id":1,"result":null}')
    expect(readRequest(response, true)).toEqual({ kind: 'ignore' })
    expect(readRequest(response, false)).toEqual({ kind: 'invalid', rawId: '1' })
    expect(readRequest(entry('{"jsonrpc":"2.0","id":1,"error":{"code":1}}'), true)).toEqual({ kind: 'ignore' })
    expect(readRequest(entry('{"jsonrpc":"2.0","id":1,"error":null}'), true)).toEqual({ kind: 'invalid', rawId: '1' })
    expect(readRequest(entry('{"jsonrpc":"2.0","id":1,"result":1,"params":[]}'), true)).toEqual({ kind: 'invalid', rawId: '1' })
  })

  test('behavior: geth echoes <, >, & in string ids \\u-escaped', () => {
    const text = '{"jsonrpc":"2.0","id":"<&>","method":"m"}'
    expect(readRequest(entry(text), true)).toMatchObject({ rawId: '"\\u003c\\u0026\\u003e"' })
    expect(readRequest(entry(text), false)).toMatchObject({ rawId: '"<&>"' })
  })
})
