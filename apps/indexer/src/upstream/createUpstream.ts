import { quantityFromRpc } from '@uncle-rpc/chain'
import { classifyError, type UpstreamFailure } from './classifyError.js'
import { UpstreamError, UpstreamRefusedError } from './errors.js'
import { createGovernor, type Governor } from './governor.js'
import { type BatchOutcome, sendHttpBatch } from './httpBatch.js'
import { createWebSocketLink, type NewHeadsHandlers } from './webSocketLink.js'

export type UpstreamRequest = { method: string; params: unknown[] }

export type UpstreamOptions = {
  url: string
  /** Requests per JSON-RPC batch (one HTTP request). */
  batchSize?: number
  /** Most batches in flight at once (the adaptive window starts here). */
  maxInFlight?: number
  timeoutMs?: number
  /** Rounds of retries for failed entries before giving up on the call. */
  maxAttempts?: number
  onRetry?: (info: { attempt: number; failed: number; reason: string; delayMs: number }) => void
}

export type Upstream = {
  /**
   * Sends many requests as JSON-RPC batches, retrying only the entries that failed (or whose
   * result `accept` rejects, e.g. a `null` block from a lagging node) with backoff.
   */
  requestMany<T>(requests: UpstreamRequest[], accept?: (result: unknown) => boolean): Promise<T[]>
  request<T>(request: UpstreamRequest, accept?: (result: unknown) => boolean): Promise<T>
  chainId(): Promise<bigint>
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
export function isWebSocketUrl(url: string): boolean {
  return /^wss?:\/\//i.test(url)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Creates the JSON-RPC client for one network's archive node (raw JSON-RPC batches over HTTP; viem over WebSocket). */
export function createUpstream(options: UpstreamOptions): Upstream {
  const batchSize = options.batchSize ?? 100
  const maxAttempts = options.maxAttempts ?? 10
  const governor = createGovernor({ max: options.maxInFlight ?? 4 })
  const timeout = options.timeoutMs ?? 20_000
  // Note: retries are ours (per failed entry, honouring Retry-After), so viem's are off. Over a
  // WebSocket there is no batching: a chunk's requests are all in flight on the socket at once.
  const link = isWebSocketUrl(options.url) ? createWebSocketLink(options.url, timeout) : undefined
  // Over HTTP a chunk is one raw JSON-RPC batch; over a WebSocket, the link's requests issued at once.
  const sendChunk = async (chunk: UpstreamRequest[]): Promise<BatchOutcome[]> => {
    if (!link) return sendHttpBatch(options.url, chunk, timeout)
    const settled = await Promise.allSettled(chunk.map((r) => link.request(r.method, r.params)))
    return settled.map((outcome) =>
      outcome.status === 'fulfilled' ? { ok: true, result: outcome.value } : { ok: false, failure: classifyError(outcome.reason) },
    )
  }

  async function requestMany<T>(
    requests: UpstreamRequest[],
    accept: (result: unknown) => boolean = (r) => r !== null,
  ): Promise<T[]> {
    const results = new Array<T>(requests.length)
    let pending = requests.map((_, i) => i)
    for (let attempt = 1; pending.length > 0; attempt++) {
      const failed: number[] = []
      let worst: UpstreamFailure | undefined
      const chunks: number[][] = []
      for (let i = 0; i < pending.length; i += batchSize) chunks.push(pending.slice(i, i + batchSize))
      await Promise.all(
        chunks.map(async (chunk) => {
          const release = await governor.acquire()
          try {
            const settled = await sendChunk(chunk.map((i) => requests[i] as UpstreamRequest))
            let throttled: UpstreamFailure | undefined
            settled.forEach((outcome, k) => {
              const index = chunk[k] as number
              if (outcome.ok && accept(outcome.result)) {
                results[index] = outcome.result as T
                return
              }
              const failure = outcome.ok ? { retryable: true, throttled: false, reason: 'missing result (node behind?)' } : outcome.failure
              if (!failure.retryable)
                throw new UpstreamRefusedError(`${requests[index]?.method} failed: ${failure.reason}`)
              if (failure.throttled) throttled = failure
              if (!worst || failure.throttled || failure.retryAfterMs) worst = failure
              failed.push(index)
            })
            governor.report(throttled ? 'throttled' : 'ok', throttled?.retryAfterMs)
          } finally {
            release()
          }
        }),
      )
      pending = failed
      if (pending.length === 0) break
      if (attempt >= maxAttempts)
        throw new UpstreamError(`upstream still failing after ${attempt} attempts (${pending.length} requests; last: ${worst?.reason})`)
      // Note: capped at 10 s, so a node that comes back is in use again within seconds; a
      // server that wants longer says so with Retry-After.
      const backoff = Math.min(10_000, 200 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2)
      const delayMs = Math.max(backoff, worst?.retryAfterMs ?? 0)
      options.onRetry?.({ attempt, failed: pending.length, reason: worst?.reason ?? 'unknown', delayMs })
      await sleep(delayMs)
    }
    return results
  }

  return {
    governor,
    requestMany,
    async request<T>(request: UpstreamRequest, accept?: (result: unknown) => boolean) {
      const [result] = await requestMany<T>([request], accept)
      return result as T
    },
    async chainId() {
      return quantityFromRpc('chainId', await this.request({ method: 'eth_chainId', params: [] }))
    },
    async blockNumber() {
      return quantityFromRpc('blockNumber', await this.request({ method: 'eth_blockNumber', params: [] }))
    },
    ...(link && { subscribeNewHeads: link.subscribeNewHeads }),
    async close() {
      await link?.close()
    },
  }
}
