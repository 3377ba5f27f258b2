import { BaseError } from '@uncle-rpc/errors'
import { expect, test } from 'vitest'
import {
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  JsonRpcError,
  jsonRpcErrorCodes,
  LimitExceededError,
  MethodNotFoundError,
  NotFoundError,
  ParseError,
  RejectedError,
  ServerError,
} from './errors.js'

test('default: codes and geth messages', () => {
  expect([
    ParseError.code,
    InvalidRequestError.code,
    MethodNotFoundError.code,
    InvalidParamsError.code,
    InternalError.code,
  ]).toEqual([-32700, -32600, -32601, -32602, -32603])
  expect(new ParseError()).toMatchObject({ code: -32700, shortMessage: 'parse error', name: 'ParseError' })
  expect(new InvalidRequestError()).toMatchObject({ code: -32600, shortMessage: 'invalid request' })
  expect(new MethodNotFoundError('eth_x').shortMessage).toBe('the method eth_x does not exist/is not available')
  expect(new InternalError()).toMatchObject({ code: -32603, shortMessage: 'internal error' })
})

test('args: a generic error with code and data, the cause kept for logs', () => {
  const cause = new Error('redis down')
  const error = new JsonRpcError(-32005, 'project ID request rate exceeded', { data: { allowed_rps: 10 }, cause })
  expect(error).toBeInstanceOf(BaseError)
  expect(error).toMatchObject({ code: -32005, data: { allowed_rps: 10 }, cause, name: 'JsonRpcError' })
  expect(new InvalidParamsError('x')).toBeInstanceOf(JsonRpcError)
})

test('default: the provider codes (Infura and geth) and their default texts', () => {
  expect([ServerError.code, RejectedError.code, LimitExceededError.code, NotFoundError.code]).toEqual([-32000, -32002, -32005, -32601])
  expect(new RejectedError()).toMatchObject({ code: -32002, shortMessage: 'rejected due to project ID settings', name: 'RejectedError' })
  expect(new ServerError('invalid project id')).toMatchObject({ code: -32000, name: 'ServerError' })
  expect(new LimitExceededError('x', { data: { backoff_seconds: 1 } })).toMatchObject({ code: -32005, data: { backoff_seconds: 1 } })
  expect(Object.values(jsonRpcErrorCodes)).toEqual([-32700, -32600, -32601, -32602, -32603, -32000, -32002, -32005])
})
