import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { createJsonRpcHandler } from './dispatch.js'
import { InvalidParamsError } from './errors.js'
import { decodeBlockNumberOrTag, decodeBool, decodeHash, decodeUint, optionalArg, positionalParams } from './params.js'
import { rawJson } from './response.js'
import type { JsonRpcMethods } from './types.js'

const methods: JsonRpcMethods<null> = {
  echo: (params) => params,
  raw: () => rawJson('{"a":1}'),
  throws: () => {
    throw new Error('internal detail')
  },
  invalid: () => {
    throw new InvalidParamsError('bad <param>', { data: ['x'] })
  },
  decode: (params) => positionalParams(params, [decodeHash, decodeUint, optionalArg(decodeBool)]),
  block: async (params) => String(positionalParams(params, [decodeBlockNumberOrTag])[0]),
}
const handlers = [
  createJsonRpcHandler<null>({ methods, maxBatchSize: 5 }),
  createJsonRpcHandler<null>({ methods, maxBatchSize: 5, geth: true }),
]

/** Whether `value` is one JSON-RPC 2.0 response object with geth's key order. */
function isResponse(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const response = value as Record<string, unknown>
  const keys = Object.keys(response).join(',')
  if (response.jsonrpc !== '2.0') return false
  const id = response.id
  if (id !== null && typeof id === 'object') return false
  if (keys === 'jsonrpc,id,result') return true
  if (keys !== 'jsonrpc,id,error') return false
  const error = response.error as Record<string, unknown>
  const errorKeys = Object.keys(error).join(',')
  return (
    Number.isInteger(error.code) &&
    typeof error.message === 'string' &&
    (errorKeys === 'code,message' || errorKeys === 'code,message,data')
  )
}

function assertValidBody(body: string | undefined): void {
  if (body === undefined) return
  const value: unknown = JSON.parse(body)
  if (Array.isArray(value)) {
    expect(value.length).toBeGreaterThan(0)
    for (const entry of value) expect(isResponse(entry), body).toBe(true)
  } else {
    expect(isResponse(value), body).toBe(true)
  }
}

const idArbitrary = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant(null),
  fc.jsonValue(),
)
const paramArbitrary = fc.oneof(
  fc.constantFrom('0x0', '0x', '', '0x01', 'latest', '0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b'),
  fc.string(),
  fc.jsonValue(),
)
const requestArbitrary = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue()),
    id: idArbitrary,
    method: fc.oneof(fc.constantFrom(...Object.keys(methods), 'missing', 'toString'), fc.jsonValue()),
    params: fc.oneof(fc.array(paramArbitrary, { maxLength: 4 }), fc.jsonValue()),
    result: fc.jsonValue(),
  },
  { requiredKeys: [] },
)
const messageArbitrary = fc.oneof(
  requestArbitrary.map((request) => JSON.stringify(request)),
  fc.array(fc.oneof(requestArbitrary, fc.jsonValue()), { maxLength: 7 }).map((batch) => JSON.stringify(batch)),
  fc.json(),
  fc.string(),
)

describe('handle', () => {
  test('behavior: never throws; returns undefined or well-formed JSON-RPC responses', async () => {
    await fc.assert(
      fc.asyncProperty(messageArbitrary, fc.boolean(), async (text, pretty) => {
        // Re-indent some valid JSON so the raw-id scanner also meets whitespace.
        let input = text
        if (pretty) {
          try {
            input = JSON.stringify(JSON.parse(text), null, 1)
          } catch {
            input = text
          }
        }
        for (const handler of handlers) assertValidBody(await handler.handle(input, null))
      }),
      { numRuns: 1000 },
    )
  })

  test('behavior: the id comes back as the same JSON text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean()),
        async (id) => {
          const body = await handlers[0]!.handle(JSON.stringify({ jsonrpc: '2.0', id, method: 'echo' }), null)
          expect(body!.startsWith(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`)).toBe(true)
        },
      ),
      { numRuns: 300 },
    )
  })
})
