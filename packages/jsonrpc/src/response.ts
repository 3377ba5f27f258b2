import { randomUUID } from 'node:crypto'
import { InternalError, type JsonRpcError } from './errors.js'
import { goJsonString, goJsonStringify } from './goJson.js'
import { idHead, ResultBody, resultKey } from './resultBody.js'
import type { RawJson } from './types.js'

// The envelopes (responses, a request, a batch) are built by concatenation in geth's field order
// (rpc/json.go jsonrpcMessage: jsonrpc, id, then method and params, or result, or error; jsonError:
// code, message, data).

const rawJsonMarker = Symbol('uncle-rpc.rawJson')

/** Wraps pre-serialized JSON (text or its UTF-8 bytes) so a method can return it (e.g. a cached answer); written verbatim. */
export function rawJson(json: string | Uint8Array): RawJson {
  return { [rawJsonMarker]: true, json } as unknown as RawJson
}

/** Whether a method's return value is a rawJson wrapper. */
export function isRawJson(value: unknown): value is RawJson {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[rawJsonMarker] === true
}

const utf8 = new TextDecoder()

/** A response body as text (bytes are UTF-8). */
export function bodyText(body: string | Uint8Array | ResultBody): string {
  if (typeof body === 'string') return body
  if (body instanceof Uint8Array) return utf8.decode(body)
  const bytes = Buffer.allocUnsafe(body.length)
  body.writeInto(bytes, 0)
  return utf8.decode(bytes)
}

/** `{"jsonrpc":"2.0","id":<rawId>,"result":<result>}`; undefined results are written as null. Throws if unserializable. */
export function resultResponse(rawId: string, result: unknown): string {
  // Note: null (an unknown block's answer) needs no serializer.
  const json = result === null || result === undefined ? 'null' : isRawJson(result) ? bodyText(result.json) : (goJsonStringify(result) ?? 'null')
  return idHead + rawId + resultKey + json + '}'
}

/** `{"jsonrpc":"2.0","id":<rawId>,"error":{"code":…,"message":…[,"data":…]}}`. Throws if `data` is unserializable. */
export function errorResponse(rawId: string, error: JsonRpcError): string {
  let body = '{"code":' + error.code + ',"message":' + goJsonString(error.shortMessage)
  if (error.data !== undefined && error.data !== null) body += ',"data":' + (goJsonStringify(error.data) ?? 'null')
  return idHead + rawId + ',"error":' + body + '}}'
}

/**
 * `-32603 internal error` with a fresh correlation id in `data`: what the client sees of any
 * unexpected failure (the caller logs the same id with the cause; nothing else leaks).
 */
export function internalErrorResponse(rawId: string): { correlationId: string; body: string } {
  const correlationId = randomUUID().slice(0, 8)
  return { correlationId, body: errorResponse(rawId, new InternalError('internal error', { data: { correlationId } })) }
}

/** `{"jsonrpc":"2.0","id":<rawId>,"error":<error>}` for an error object as another server wrote it (parsed), re-serialized. */
export function errorObjectResponse(rawId: string, error: object): string {
  return idHead + rawId + ',"error":' + (goJsonStringify(error) ?? 'null') + '}'
}

/** `{"jsonrpc":"2.0","id":<rawId>,"method":…,"params":…}`: a call as this server sends it to another (JSON.stringify, no Go escaping). */
export function requestBody(rawId: string, method: string, params: readonly unknown[]): string {
  return idHead + rawId + ',"method":' + JSON.stringify(method) + ',"params":' + JSON.stringify(params) + '}'
}

/** A batch's body: the bodies present, in order, as one JSON array; undefined when there are none (only notifications). */
export function batchBody(bodies: readonly (string | undefined)[]): string | undefined {
  const present = bodies.filter((body) => body !== undefined)
  return present.length === 0 ? undefined : '[' + present.join(',') + ']'
}
