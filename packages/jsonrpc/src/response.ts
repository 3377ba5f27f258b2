import { randomUUID } from 'node:crypto'
import { answerBytes } from '@uncle-rpc/wire/answerBytes'
import { InternalError, type JsonRpcError } from './errors.js'
import { goJsonString, goJsonStringify } from './goJson.js'
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
  return typeof body === 'string' ? body : utf8.decode(body instanceof ResultBody ? body.bytes() : body)
}

const idHead = '{"jsonrpc":"2.0","id":'
const resultKey = ',"result":'

/** `{"jsonrpc":"2.0","id":<rawId>,"result":<result>}`; undefined results are written as null. Throws if unserializable. */
export function resultResponse(rawId: string, result: unknown): string {
  // Note: null (an unknown block's answer) needs no serializer.
  const json = result === null || result === undefined ? 'null' : isRawJson(result) ? bodyText(result.json) : (goJsonStringify(result) ?? 'null')
  return idHead + rawId + resultKey + json + '}'
}

const resultHead = Buffer.from(idHead)
const resultMiddle = Buffer.from(resultKey)

/**
 * resultResponse for a result already in bytes (a cached answer), kept as its parts until a
 * transport writes it (a LazyBody of the wire): the result's bytes are then copied once,
 * straight into the frame or HTTP response sent. Note: bytes, where the text form is flattened
 * and UTF-8 encoded again on every answer; parts, where composing the response first copied the
 * answer twice, the first time into fresh memory (the copies and that memory were 10% of a
 * cached WebSocket answer's server time in a profile).
 */
export class ResultBody {
  /** The response's byte count. */
  readonly length: number
  private readonly idBytes: number

  constructor(
    readonly rawId: string,
    readonly json: Uint8Array,
  ) {
    let ascii = true
    for (let i = 0; i < rawId.length; i++) if (rawId.charCodeAt(i) > 127) ascii = false
    this.idBytes = ascii ? rawId.length : Buffer.byteLength(rawId)
    this.length = resultHead.length + this.idBytes + resultMiddle.length + json.length + 1
  }

  /** Writes the response into `into` from `at` (`length` bytes); returns where it ends. */
  writeInto(into: Buffer, at: number): number {
    const { rawId, json, idBytes } = this
    into.set(resultHead, at)
    at += resultHead.length
    // Note: an id is mostly a few ASCII digits: set one by one, not through Buffer's write (a call into C++).
    if (idBytes === rawId.length) for (let i = 0; i < idBytes; i++) into[at + i] = rawId.charCodeAt(i)
    else into.write(rawId, at, 'utf8')
    at += idBytes
    into.set(resultMiddle, at)
    at += resultMiddle.length
    into.set(json, at)
    at += json.length
    into[at] = 125 // '}'
    return at + 1
  }

  /** The response in bytes of its own. */
  bytes(): Buffer {
    const out = answerBytes(this.length)
    this.writeInto(out, 0)
    return out
  }
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
