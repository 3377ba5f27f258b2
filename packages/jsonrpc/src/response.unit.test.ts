import { expect, test } from 'vitest'
import { batchBody, errorObjectResponse, internalErrorResponse, requestBody } from './response.js'

test('default: internalErrorResponse: -32603 with a fresh 8-hex correlation id in data, the same id returned', () => {
  const first = internalErrorResponse('7')
  expect(first.body).toBe(`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"internal error","data":{"correlationId":"${first.correlationId}"}}}`)
  expect(first.correlationId).toMatch(/^[0-9a-f]{8}$/)
  expect(internalErrorResponse('null').correlationId).not.toBe(first.correlationId)
})

test('default: requestBody, errorObjectResponse and batchBody write the envelopes in geth’s field order', () => {
  expect(requestBody('0', 'eth_getUncleByBlockHashAndIndex', ['0xab', '0x0'])).toBe(
    '{"jsonrpc":"2.0","id":0,"method":"eth_getUncleByBlockHashAndIndex","params":["0xab","0x0"]}',
  )
  expect(errorObjectResponse('"a"', { code: -32000, message: '<header not found>' })).toBe(
    '{"jsonrpc":"2.0","id":"a","error":{"code":-32000,"message":"\\u003cheader not found\\u003e"}}',
  )
  expect(batchBody(['{"a":1}', undefined, '{"b":2}'])).toBe('[{"a":1},{"b":2}]')
  expect(batchBody([undefined, undefined])).toBeUndefined()
})
