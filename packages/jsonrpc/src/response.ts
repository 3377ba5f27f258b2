import type { JsonRpcError } from './errors.js'
import { goJsonString, goJsonStringify } from './goJson.js'
import type { RawJson } from './types.js'

// Response bodies are built by concatenation in geth's field order (rpc/json.go jsonrpcMessage:
// jsonrpc, id, then result or error; jsonError: code, message, data).

const rawJsonMarker = Symbol('uncle-rpc.rawJson')

/** Wraps pre-serialized JSON so a method can return it (e.g. a cached answer); written verbatim. */
export function rawJson(json: string): RawJson {
  return { [rawJsonMarker]: true, json } as unknown as RawJson
}

/** Whether a method's return value is a rawJson wrapper. */
export function isRawJson(value: unknown): value is RawJson {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[rawJsonMarker] === true
}

/** `{"jsonrpc":"2.0","id":<rawId>,"result":<result>}`; undefined results are written as null. Throws if unserializable. */
export function resultResponse(rawId: string, result: unknown): string {
  const json = isRawJson(result) ? result.json : (goJsonStringify(result) ?? 'null')
  return '{"jsonrpc":"2.0","id":' + rawId + ',"result":' + json + '}'
}

/** `{"jsonrpc":"2.0","id":<rawId>,"error":{"code":…,"message":…[,"data":…]}}`. Throws if `data` is unserializable. */
export function errorResponse(rawId: string, error: JsonRpcError): string {
  let body = '{"code":' + error.code + ',"message":' + goJsonString(error.shortMessage)
  if (error.data !== undefined && error.data !== null) body += ',"data":' + (goJsonStringify(error.data) ?? 'null')
  return '{"jsonrpc":"2.0","id":' + rawId + ',"error":' + body + '}}'
}
