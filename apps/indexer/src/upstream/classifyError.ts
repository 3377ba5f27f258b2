import { jsonRpcErrorCodes } from '@uncle-rpc/jsonrpc'
import { HttpRequestError, RpcRequestError, SocketClosedError, TimeoutError, WebSocketRequestError } from 'viem'

/** What a failed upstream call means for the caller. */
export type UpstreamFailure = {
  /** Worth asking again (the node may answer later). */
  retryable: boolean
  /** The node asked us to slow down (429, -32005) or is struggling (5xx, timeouts). */
  throttled: boolean
  /** Server-requested wait, from `Retry-After`. */
  retryAfterMs?: number
  /** Short description for logs (never contains secrets: upstream URLs may hold API keys). */
  reason: string
}

function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

// JSON-RPC codes that say the request itself is wrong: asking again cannot help.
const permanentRpcCodes = new Set<number>([jsonRpcErrorCodes.invalidRequest, jsonRpcErrorCodes.methodNotFound, jsonRpcErrorCodes.invalidParams])

/** Classifies an error thrown by a viem transport request. */
export function classifyError(error: unknown): UpstreamFailure {
  if (error instanceof HttpRequestError) {
    const status = error.status
    const retryAfterMs = parseRetryAfter(error.headers?.get('Retry-After'))
    if (status === 429)
      return { retryable: true, throttled: true, ...(retryAfterMs !== undefined && { retryAfterMs }), reason: 'HTTP 429' }
    if (status === undefined) return { retryable: true, throttled: true, reason: 'connection failed' }
    if (status >= 500 || status === 408)
      return { retryable: true, throttled: true, ...(retryAfterMs !== undefined && { retryAfterMs }), reason: `HTTP ${status}` }
    return { retryable: false, throttled: false, reason: `HTTP ${status}` }
  }
  if (error instanceof TimeoutError) return { retryable: true, throttled: true, reason: 'timeout' }
  if (error instanceof WebSocketRequestError || error instanceof SocketClosedError)
    return { retryable: true, throttled: true, reason: 'connection failed' }
  if (error instanceof RpcRequestError) {
    if (error.code === jsonRpcErrorCodes.limitExceeded) return { retryable: true, throttled: true, reason: 'rate limited (-32005)' }
    if (permanentRpcCodes.has(error.code)) return { retryable: false, throttled: false, reason: `JSON-RPC error ${error.code}` }
    return { retryable: true, throttled: false, reason: `JSON-RPC error ${error.code}` }
  }
  return { retryable: true, throttled: false, reason: error instanceof Error ? error.name : 'unknown error' }
}
