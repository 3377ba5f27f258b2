import { goHtmlEscape } from './goJson.js'
import { readQuickCall } from './quickCall.js'
import { objectTokens, scanRawTokens } from './rawId.js'
import type { ParsedEntry, ParsedMessage } from './types.js'

const parseError: ParsedMessage = { kind: 'parseError' }

/**
 * Parses a request text (JSON-RPC 2.0 §4, §6): a single call in its common spelling without
 * JSON.parse (quickCall.ts, the same result); else JSON.parse for validity and values, then the
 * raw-token scanner for ids, only when some entry is an object.
 */
export function parseMessage(text: string): ParsedMessage {
  return readQuickCall(text) ?? parseJsonMessage(text)
}

/** parseMessage by JSON.parse alone (what readQuickCall must agree with). */
export function parseJsonMessage(text: string): ParsedMessage {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    // Note: the protocol answer to any JSON.parse failure is -32700, made by the dispatcher.
    return parseError
  }
  if (!Array.isArray(value)) {
    if (typeof value !== 'object' || value === null) return { kind: 'single', entry: plainEntry(value) }
    const tokens = objectTokens(text, value as Record<string, unknown>)
    return { kind: 'single', entry: { value, rawId: tokens.id, rawParams: tokens.params } }
  }
  if (!value.some(isObject)) return { kind: 'batch', entries: value.map(plainEntry) }
  const tokens = scanRawTokens(text)
  const entries = value.map((entry, i): ParsedEntry => ({ value: entry, rawId: tokens[i]!.id, rawParams: tokens[i]!.params }))
  return { kind: 'batch', entries }
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function plainEntry(value: unknown): ParsedEntry {
  return { value, rawId: undefined, rawParams: undefined }
}

/** What one entry asks for. `rawId` is the JSON text to echo; undefined means a notification. */
export type RequestKind =
  | { readonly kind: 'call'; readonly method: string; readonly params: unknown; readonly rawId: string | undefined }
  | { readonly kind: 'invalid'; readonly rawId: string }
  | { readonly kind: 'ignore' }

const invalidWithoutId: RequestKind = { kind: 'invalid', rawId: 'null' }
const ignore: RequestKind = { kind: 'ignore' }

/**
 * Classifies an entry as geth's handler does (rpc/json.go isCall/isNotification/hasValidID):
 * a call needs `jsonrpc` "2.0" and a non-empty string `method`; an id that is an object or an
 * array is invalid (answered with id null); an entry without `id` that is not a valid request is
 * not a notification but an invalid request, answered with id null (as JSON-RPC 2.0 §6 shows).
 */
export function readRequest(entry: ParsedEntry, geth: boolean): RequestKind {
  const value = entry.value
  if (!isObject(value)) return invalidWithoutId
  const request = value as Record<string, unknown>
  const rawId = entry.rawId
  const echoId = rawId === undefined || !geth ? rawId : goHtmlEscape(rawId)
  const validId = rawId !== undefined && rawId.charCodeAt(0) !== 123 && rawId.charCodeAt(0) !== 91 // not { or [
  const validVersion = request.jsonrpc === '2.0'
  const method = request.method
  if (validVersion && typeof method === 'string' && method !== '') {
    if (rawId === undefined || validId) return { kind: 'call', method, params: request.params, rawId: echoId }
    return invalidWithoutId
  }
  // Note: geth (isResponse) silently drops a response object sent to it: the server has no
  // pending calls of its own, so nothing is written back.
  if (geth && validVersion && validId && request.params === undefined && isResponseLike(request)) return ignore
  return validId ? { kind: 'invalid', rawId: echoId! } : invalidWithoutId
}

function isResponseLike(request: Record<string, unknown>): boolean {
  return Object.hasOwn(request, 'result') || (request.error !== undefined && request.error !== null)
}
