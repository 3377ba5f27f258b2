import { expect, test } from 'vitest'
import { internalErrorResponse } from './response.js'

test('default: internalErrorResponse: -32603 with a fresh 8-hex correlation id in data, the same id returned', () => {
  const first = internalErrorResponse('7')
  expect(first.body).toBe(`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"internal error","data":{"correlationId":"${first.correlationId}"}}}`)
  expect(first.correlationId).toMatch(/^[0-9a-f]{8}$/)
  expect(internalErrorResponse('null').correlationId).not.toBe(first.correlationId)
})
