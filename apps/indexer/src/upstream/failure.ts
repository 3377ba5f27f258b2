import { jsonRpcErrorCodes } from '@uncle-rpc/jsonrpc'

/** How one upstream request failed, as either transport saw it (HTTP batch or WebSocket). */
export type TransportFailure =
  | { kind: 'http status'; status: number; retryAfter: string | null }
  | { kind: 'timeout' }
  | { kind: 'connection' }
  /** A JSON-RPC error object in the answer (for a batch entry, or for the whole batch). */
  | { kind: 'rpc error'; code: unknown }
  /** An answer that is not JSON-RPC, or an entry missing from a batch answer. */
  | { kind: 'unreadable'; reason: string }

/** What a failed upstream request means for the caller. */
export type UpstreamFailure = {
  /** Worth asking again (the node may answer later); false: the request itself is wrong. */
  retryable: boolean
  /** The node asked us to slow down (429, -32005) or is struggling (5xx, timeouts, lost connections). */
  throttled: boolean
  /** Server-requested wait, from `Retry-After`. */
  retryAfterMs?: number
  /** Short description for logs (never contains secrets: upstream URLs may hold API keys). */
  reason: string
}

/** `Retry-After` in milliseconds from now: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

// JSON-RPC codes that say the request itself is wrong: asking again cannot help.
const permanentRpcCodes = new Set<unknown>([jsonRpcErrorCodes.invalidRequest, jsonRpcErrorCodes.methodNotFound, jsonRpcErrorCodes.invalidParams])

/** The one classifier of upstream failures, for HTTP and WebSocket alike. */
export function classifyFailure(failure: TransportFailure, now = Date.now()): UpstreamFailure {
  switch (failure.kind) {
    case 'http status': {
      const retryAfterMs = parseRetryAfter(failure.retryAfter, now)
      const wait = retryAfterMs !== undefined ? { retryAfterMs } : {}
      if (failure.status === 429) return { retryable: true, throttled: true, ...wait, reason: 'HTTP 429' }
      if (failure.status >= 500 || failure.status === 408) return { retryable: true, throttled: true, ...wait, reason: `HTTP ${failure.status}` }
      return { retryable: false, throttled: false, reason: `HTTP ${failure.status}` }
    }
    case 'timeout':
      return { retryable: true, throttled: true, reason: 'timeout' }
    case 'connection':
      return { retryable: true, throttled: true, reason: 'connection failed' }
    case 'rpc error': {
      const code = typeof failure.code === 'number' ? failure.code : 0
      if (code === jsonRpcErrorCodes.limitExceeded) return { retryable: true, throttled: true, reason: `rate limited (${code})` }
      if (permanentRpcCodes.has(code)) return { retryable: false, throttled: false, reason: `JSON-RPC error ${code}` }
      return { retryable: true, throttled: false, reason: `JSON-RPC error ${code}` }
    }
    case 'unreadable':
      return { retryable: true, throttled: false, reason: failure.reason }
  }
}
