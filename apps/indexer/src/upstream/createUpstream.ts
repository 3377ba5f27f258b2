import { quantityFromRpc } from '@uncle-rpc/chain'
import { UpstreamError } from './errors.js'
import { classifyFailure } from './failure.js'
import { createGovernor, type Governor } from './governor.js'
import { type EntryOutcome, sendHttpBatch } from './httpBatch.js'
import { createRequestMany, type Settled, type UpstreamRequest, worstFailure } from './requestMany.js'
import { createWebSocketLink, type NewHeadsHandlers, WebSocketRequestError } from './webSocketLink.js'

export type { Settled, UpstreamRequest }

export type UpstreamOptions = {
  url: string
  /** Requests per JSON-RPC batch (one HTTP request), or sent together over a WebSocket. */
  batchSize?: number
  /** Most batches in flight at once (the adaptive window starts here). */
  maxInFlight?: number
  timeoutMs?: number
  /** Requests of a pass that failed (timeout, connection, 5xx, 429, …); the job that asked retries them. */
  onFailed?: (info: { failed: number; reason: string }) => void
}

export type Upstream = {
  /**
   * Sends many requests in one pass (chunked, paced by the governor): each comes back settled.
   * Nothing is retried here; see {@link createRequestMany}.
   */
  requestMany<T>(requests: readonly UpstreamRequest[], accept?: (result: unknown) => boolean): Promise<Settled<T>[]>
  /** eth_chainId. Throws UpstreamError when the node does not answer. */
  chainId(): Promise<bigint>
  /** eth_blockNumber. Throws UpstreamError when the node does not answer. */
  blockNumber(): Promise<bigint>
  /**
   * ws(s):// nodes only: keeps a `newHeads` subscription up (NewHeadsHandlers); resolves to the
   * unsubscribe function. Undefined for HTTP nodes (poll instead).
   */
  subscribeNewHeads?: (handlers: NewHeadsHandlers) => Promise<() => Promise<void>>
  /** Closes the WebSocket, if any (HTTP needs nothing). */
  close(): Promise<void>
  readonly governor: Governor
}

/** True for ws:// and wss:// node URLs. */
function isWebSocketUrl(url: string): boolean {
  return /^wss?:\/\//i.test(url)
}

/**
 * The JSON-RPC client of one network's archive node: raw JSON-RPC batches over HTTP (httpBatch.ts),
 * or our own link over a WebSocket (webSocketLink.ts), with one failure classifier (failure.ts),
 * one request-many with its governor (requestMany.ts) and the typed calls the indexer makes.
 */
export function createUpstream(options: UpstreamOptions): Upstream {
  const timeout = options.timeoutMs ?? 20_000
  const governor = createGovernor({ max: options.maxInFlight ?? 4 })
  const link = isWebSocketUrl(options.url) ? createWebSocketLink(options.url, timeout) : undefined
  // Note: over a WebSocket there is no batching: a chunk's requests are all in flight on the socket at once.
  const send = async (chunk: UpstreamRequest[]): Promise<EntryOutcome[]> => {
    if (!link) return sendHttpBatch(options.url, chunk, timeout)
    const settled = await Promise.allSettled(chunk.map((r) => link.request(r.method, r.params)))
    return settled.map((outcome) => {
      if (outcome.status === 'fulfilled') return { ok: true, result: outcome.value }
      const failure = outcome.reason instanceof WebSocketRequestError ? outcome.reason.failure : ({ kind: 'connection' } as const)
      return { ok: false, failure: classifyFailure(failure) }
    })
  }
  const pass = createRequestMany({ send, chunkSize: options.batchSize ?? 100, governor })

  async function requestMany<T>(requests: readonly UpstreamRequest[], accept?: (result: unknown) => boolean): Promise<Settled<T>[]> {
    const settled = await pass<T>(requests, accept)
    const worst = worstFailure(settled)
    if (worst !== undefined) options.onFailed?.({ failed: settled.filter((s) => !s.ok).length, reason: worst.reason })
    return settled
  }

  const one = async <T>(method: string): Promise<T> => {
    const [settled] = await requestMany<T>([{ method, params: [] }])
    if (settled === undefined || !settled.ok) throw new UpstreamError(`${method} failed: ${settled?.ok === false ? settled.failure.reason : 'no answer'}`)
    return settled.result
  }

  return {
    governor,
    requestMany,
    chainId: async () => quantityFromRpc('chainId', await one('eth_chainId')),
    blockNumber: async () => quantityFromRpc('blockNumber', await one('eth_blockNumber')),
    ...(link && { subscribeNewHeads: link.subscribeNewHeads }),
    async close() {
      await link?.close()
    },
  }
}
