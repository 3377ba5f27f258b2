import { describeWithFixtures, readFixtureJson } from '@uncle-rpc/testing'
import { describe, expect, test } from 'vitest'
import { createJsonRpcHandler } from './dispatch.js'
import { JsonRpcError } from './errors.js'
import { decodeHash, decodeUint, positionalParams } from './params.js'
import { parseMessage } from './parse.js'
import { bodyText, rawJson } from './response.js'
import { ResultBody } from './resultBody.js'
import type { JsonRpcMethods } from './types.js'

type Context = { internal: { error: unknown; correlationId: string }[] }
const newContext = (): Context => ({ internal: [] })

const methods: JsonRpcMethods<Context> = {
  echo: (params) => params,
  nothing: () => undefined,
  cached: () => rawJson('{"b":1,"a":[]}'),
  cachedBytes: () => rawJson(new TextEncoder().encode('{"b":"é","a":[]}')),
  cachedText: () => rawJson('{"b":"é","a":[]}'),
  later: async (params) => {
    await new Promise((resolve) => setTimeout(resolve, 5))
    return params
  },
  boom: () => {
    throw new Error('connection to 10.0.0.5:5432 refused <SELECT * FROM uncles>')
  },
  rejects: () => Promise.reject(new TypeError('secret')),
  bigint: () => ({ n: 1n }),
  params: (params) => positionalParams(params, [decodeHash, decodeUint]).length,
  limited: () => {
    throw new JsonRpcError(-32005, 'project ID request rate exceeded', { data: { current_rps: 13, allowed_rps: 10 } })
  },
}
const handler = createJsonRpcHandler<Context>({
  methods,
  maxBatchSize: 3,
  onInternalError: (error, correlationId, context) => context.internal.push({ error, correlationId }),
})
const handle = (text: string, context = newContext()) => handler.handle(text, context)
const call = (method: string, id = '1', rest = '') => `{"jsonrpc":"2.0","id":${id},"method":"${method}"${rest}}`

describe('envelope', () => {
  test('default: result with the id echoed', async () => {
    expect(await handle(call('echo', '7', ',"params":["a"]'))).toBe('{"jsonrpc":"2.0","id":7,"result":["a"]}')
  })

  test('args: ids of every JSON type are echoed byte-for-byte', async () => {
    for (const id of [
      '"a\\"b\\u00e9\\n<"',
      '123456789012345678901234567890',
      '-42',
      '1.0',
      '1.5e-3',
      '1E+3',
      'null',
      'true',
      '"\\ud800"',
    ]) {
      expect(await handle(call('nothing', ` ${id} `))).toBe(`{"jsonrpc":"2.0","id":${id},"result":null}`)
    }
  })

  test('behavior: duplicate id members: the last wins, as in JSON.parse', async () => {
    expect(await handle('{"id":1,"jsonrpc":"2.0","method":"nothing","id":"second"}')).toBe(
      '{"jsonrpc":"2.0","id":"second","result":null}',
    )
  })

  test('behavior: rawJson results are written verbatim; undefined is null', async () => {
    expect(await handle(call('cached'))).toBe('{"jsonrpc":"2.0","id":1,"result":{"b":1,"a":[]}}')
    expect(await handle(call('nothing'))).toBe('{"jsonrpc":"2.0","id":1,"result":null}')
  })

  test('behavior: a rawJson (bytes or text) answers a single call as a ResultBody only with the bytes option', async () => {
    const answer = (text: string, bytes?: boolean) => handler.answerMessage(parseMessage(text), newContext(), { bytes }) as { body: unknown }
    const expected = (id: string) => `{"jsonrpc":"2.0","id":${id},"result":{"b":"é","a":[]}}`
    // A multi-byte id and result: composed by bytes, the same UTF-8 as the text form.
    for (const method of ['cachedBytes', 'cachedText'])
      for (const id of ['1', '"ü€"', '-0.5e3']) {
        const body = answer(call(method, id), true).body
        expect(body).toBeInstanceOf(ResultBody)
        const written = Buffer.alloc((body as ResultBody).length + 4, 42)
        expect((body as ResultBody).writeInto(written, 2)).toBe(written.length - 2)
        // Written where it was asked, every byte, and nothing around it.
        expect(written.toString('utf8', 2, written.length - 2)).toBe(expected(id))
        expect(written.toString('latin1', 0, 2) + written.toString('latin1', written.length - 2)).toBe('****')
        expect(bodyText(body as ResultBody)).toBe(expected(id))
        expect(answer(call(method, id)).body).toBe(expected(id))
      }
    // Batches stay text.
    const batch = await handler.answerMessage(parseMessage(`[${call('cachedBytes')},${call('cached', '2')}]`), newContext(), { bytes: true })
    expect(batch.body).toBe(`[${expected('1')},{"jsonrpc":"2.0","id":2,"result":{"b":1,"a":[]}}]`)
    expect(await handle(call('cachedBytes'))).toBe(expected('1'))
    expect(await handle(call('cachedText'))).toBe(expected('1'))
  })

  test('error: parse error', async () => {
    for (const text of ['', '{"jsonrpc":"2.0",', '[', 'nul', '{"a":1}}']) {
      expect(await handle(text)).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}')
    }
  })

  test('error: invalid requests', async () => {
    const invalid = (id: string) => `{"jsonrpc":"2.0","id":${id},"error":{"code":-32600,"message":"invalid request"}}`
    expect(await handle('{"jsonrpc":"1.0","id":"x","method":"echo"}')).toBe(invalid('"x"'))
    expect(await handle('{"id":3,"method":"echo"}')).toBe(invalid('3'))
    expect(await handle('{"jsonrpc":"2.0","id":3,"method":["echo"]}')).toBe(invalid('3'))
    expect(await handle('{"jsonrpc":"2.0","id":3}')).toBe(invalid('3'))
    expect(await handle('{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}')).toBe(invalid('null'))
    expect(await handle('{"jsonrpc":"1.0","method":"echo"}')).toBe(invalid('null'))
    expect(await handle('"echo"')).toBe(invalid('null'))
    expect(await handle('null')).toBe(invalid('null'))
  })

  test('error: unknown method (case-sensitive, own keys only)', async () => {
    for (const name of ['Echo', 'toString', '__proto__', 'constructor', 'a"<b']) {
      const message = JSON.stringify(`the method ${name} does not exist/is not available`).replace('<', '\\u003c')
      expect(await handle(`{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(name)}}`)).toBe(
        `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":${message}}}`,
      )
    }
  })

  test('error: a JsonRpcError keeps its code, message and data', async () => {
    expect(await handle(call('limited'))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"project ID request rate exceeded","data":{"current_rps":13,"allowed_rps":10}}}',
    )
    expect(await handle(call('params', '1', ',"params":{}'))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"non-array args"}}',
    )
  })

  test('error: anything else is -32603 with a correlation id, never the error text', async () => {
    for (const method of ['boom', 'rejects', 'bigint']) {
      const context = newContext()
      const body = await handle(call(method), context)
      expect(body).toMatch(
        /^\{"jsonrpc":"2\.0","id":1,"error":\{"code":-32603,"message":"internal error","data":\{"correlationId":"[0-9a-f]{8}"\}\}\}$/,
      )
      expect(body).not.toMatch(/secret|SELECT|10\.0\.0\.5|bigint/i)
      expect(context.internal).toHaveLength(1)
      expect(body).toContain(context.internal[0]!.correlationId)
    }
  })
})

describe('notifications', () => {
  test('default: no id member → no response, even on error', async () => {
    const context = newContext()
    expect(await handle('{"jsonrpc":"2.0","method":"echo"}', context)).toBeUndefined()
    expect(await handle('{"jsonrpc":"2.0","method":"missing"}', context)).toBeUndefined()
    expect(await handle('{"jsonrpc":"2.0","method":"params","params":[1]}', context)).toBeUndefined()
    expect(await handle('{"jsonrpc":"2.0","method":"boom"}', context)).toBeUndefined()
    // The operator still learns about the failure.
    expect(context.internal).toHaveLength(1)
  })

  test('behavior: "id": null is not a notification', async () => {
    expect(await handle(call('echo', 'null'))).toBe('{"jsonrpc":"2.0","id":null,"result":null}')
  })
})

describe('batch', () => {
  test('default: one response per non-notification, in order', async () => {
    const text = `[${call('later', '1', ',"params":[1]')},${call('boom', '"b"')},{"jsonrpc":"2.0","method":"echo"}]`
    const body = await handle(text)
    expect(JSON.parse(body!)).toMatchObject([
      { id: 1, result: [1] },
      { id: 'b', error: { code: -32603 } },
    ])
  })

  test('behavior: entries run concurrently', async () => {
    let release: () => void = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const concurrent = createJsonRpcHandler<null>({
      methods: { wait: () => released.then(() => 'waited'), release: () => release() },
    })
    const body = await concurrent.handle(`[${call('wait', '1')},${call('release', '2')}]`, null)
    expect(body).toBe('[{"jsonrpc":"2.0","id":1,"result":"waited"},{"jsonrpc":"2.0","id":2,"result":null}]')
  })

  test('error: empty batch', async () => {
    expect(await handle(' [ ] ')).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}')
  })

  test('behavior: only notifications → no body', async () => {
    expect(await handle('[{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"boom"}]')).toBeUndefined()
  })

  test('error: non-object entries are invalid requests with id null', async () => {
    const invalid = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}'
    expect(await handle('[1,"x",null]')).toBe(`[${invalid},${invalid},${invalid}]`)
    expect(await handle(`[[],${call('echo', '5')}]`)).toBe(`[${invalid},{"jsonrpc":"2.0","id":5,"result":null}]`)
  })

  test('error: batch too large (handler limit, per-call override)', async () => {
    const tooLarge = (limit: number) => `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large: at most ${limit} calls per batch"}}`
    const four = `[${[1, 2, 3, 4].map((id) => call('echo', String(id))).join(',')}]`
    expect(await handle(four)).toBe(tooLarge(3))
    expect(await handler.handle(four, newContext(), { maxBatchSize: 4 })).toMatch(/^\[(\{[^{}]*\},?){4}\]$/)
    expect(await handler.handle(`[${call('echo')},${call('echo')}]`, newContext(), { maxBatchSize: 1 })).toBe(tooLarge(1))
  })

  test('behavior: handleMessage takes a message parsed once by the caller', async () => {
    const message = parseMessage(`[${call('echo', '1')},${call('echo', '2')}]`)
    expect(message.kind === 'batch' && message.entries.length).toBe(2)
    expect(await handler.handleMessage(message, newContext())).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":null},{"jsonrpc":"2.0","id":2,"result":null}]',
    )
  })
})

describe('geth option', () => {
  const geth = createJsonRpcHandler<null>({
    methods: { echo: (params) => params, hash: (params) => positionalParams(params, [decodeHash]) },
    maxBatchSize: 2,
    geth: true,
  })

  test('behavior: batch too large is an array of one with the first call id', async () => {
    const text = `[{"jsonrpc":"2.0","method":"echo"},1,${call('echo', '"first"')},${call('echo', '2')}]`
    expect(await geth.handle(text, null)).toBe(
      '[{"jsonrpc":"2.0","id":"first","error":{"code":-32600,"message":"batch too large"}}]',
    )
  })

  test('behavior: response objects get no answer; string ids are html-escaped', async () => {
    expect(await geth.handle('{"jsonrpc":"2.0","id":1,"result":"0x1"}', null)).toBeUndefined()
    expect(await geth.handle(call('echo', '"<&>"'), null)).toBe('{"jsonrpc":"2.0","id":"\\u003c\\u0026\\u003e","result":null}')
  })

  test('behavior: hex decoders see escaped strings undecoded, as geth', async () => {
    const text = (hash: string) => call('hash', '1', `,"params":["${hash}"]`)
    const H = '84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b'
    expect(await geth.handle(text(`\\u0030x${H}`), null)).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash"}}',
    )
    // Without the option, JSON string semantics apply.
    expect(await handle(call('params', '1', `,"params":["\\u0030x${H}","0x0"]`))).toBe('{"jsonrpc":"2.0","id":1,"result":2}')
    expect(await geth.handle(text(`0x${H}`), null)).toBe(`{"jsonrpc":"2.0","id":1,"result":["0x${H}"]}`)
  })
})

type ValidationCase = {
  name: string
  request: { params?: [string, string] }
  expected: { result?: unknown }
  gethBody: string
}
const casesFile = 'derived/geth_param_validation_cases.json'

describeWithFixtures([casesFile], 'geth_param_validation_cases.json', () => {
  const { cases } = readFixtureJson<{ cases: ValidationCase[] }>(casesFile)
  // Note: a test-only method: it decodes params with the real decoders and answers from the
  // fixture's own "ok" results, so this exercises the core, not storage.
  const known = new Map<string, unknown>()
  for (const c of cases) {
    if (c.expected.result && c.request.params)
      known.set(`${c.request.params[0].toLowerCase()}/${BigInt(c.request.params[1])}`, c.expected.result)
  }
  const uncleMethods: JsonRpcMethods<null> = {
    eth_getUncleByBlockHashAndIndex: (params) => {
      const [hash, index] = positionalParams(params, [decodeHash, decodeUint])
      return known.get(`${hash}/${index}`) ?? null
    },
  }

  test('default: the fixture has its 14 cases, one of them found', () => {
    expect(cases).toHaveLength(14)
    expect(known.size).toBe(1)
  })

  for (const geth of [false, true]) {
    const uncleHandler = createJsonRpcHandler<null>({ methods: uncleMethods, geth })
    test.each(cases.map((c) => [c.name, c] as const))(`behavior: %s → gethBody (geth option ${geth})`, async (_name, c) => {
      expect(await uncleHandler.handle(JSON.stringify(c.request), null)).toBe(c.gethBody)
    })
  }
})

test('behavior: answerMessage counts the error answers it writes (not notifications)', async () => {
  const counted = async (text: string) => (await handler.answerMessage(parseMessage(text), newContext())).errors
  expect(await counted(call('echo'))).toBe(0)
  expect(await counted(`[${call('nope', '2')},{"jsonrpc":"2.0","method":"nope"},1]`)).toBe(2)
  expect(await counted(`[${call('echo')},${call('echo')},${call('echo')},${call('echo')}]`)).toBe(1)
  expect(await counted('{oops')).toBe(1)
  expect(await counted('[]')).toBe(1)
  const tally = await handler.answerMessage(parseMessage(`[${call('echo', '1', ',"params":[1]')},${call('nothing', '2')},${call('nope', '3')}]`), newContext())
  expect([tally.found, tally.nulls, tally.errors]).toEqual([1, 1, 1])
})
