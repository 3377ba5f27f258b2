/** Limits that keep one client from hurting the others. Every one is a `uncle-rpc rpc` flag. */
export type RpcLimits = Readonly<{
  /** Largest HTTP request body, in bytes (413 above it). */
  maxBodyBytes: number
  /** Most entries in a batch (a single `-32600 batch too large` above it). */
  maxBatchSize: number
  /** Largest WebSocket message, in bytes (the connection is closed with 1009 above it). */
  maxWsMessageBytes: number
  /** A WebSocket with no message from the client for this long is closed (1000, "idle timeout"). */
  wsIdleTimeoutMs: number
  /** Ping period; a WebSocket that has not answered the previous ping by the next one is dropped. */
  wsPingIntervalMs: number
  /** Most open WebSocket connections per API key (the upgrade is refused with 429 above it). */
  maxWsConnectionsPerKey: number
  /** Whole HTTP request (headers and body) must arrive within this (408 after it). */
  requestTimeoutMs: number
  /** Messages of one WebSocket being answered at once; past it the server stops reading that socket. */
  wsMaxInFlight: number
  /** Answer bytes queued for one WebSocket (not yet taken by the client); past it the server stops reading that socket. */
  wsMaxQueuedBytes: number
  /** A WebSocket not read for this long because of the two bounds above is closed (1013, try again later). */
  wsStalledCloseMs: number
}>

export const defaultLimits: RpcLimits = Object.freeze({
  maxBodyBytes: 5 * 1024 * 1024,
  maxBatchSize: 1000,
  maxWsMessageBytes: 5 * 1024 * 1024,
  wsIdleTimeoutMs: 300_000,
  wsPingIntervalMs: 30_000,
  maxWsConnectionsPerKey: 100,
  requestTimeoutMs: 30_000,
  wsMaxInFlight: 16,
  wsMaxQueuedBytes: 8 * 1024 * 1024,
  wsStalledCloseMs: 10_000,
})
