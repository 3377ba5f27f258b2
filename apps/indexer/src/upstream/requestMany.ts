import { UpstreamRefusedError } from './errors.js'
import type { UpstreamFailure } from './failure.js'
import type { Governor } from './governor.js'
import type { EntryOutcome } from './httpBatch.js'

export type UpstreamRequest = { method: string; params: unknown[] }

/** One request's result, or why this pass did not get it (a transient failure: the job tries again). */
export type Settled<T> = { ok: true; result: T } | { ok: false; failure: UpstreamFailure }

export type RequestManyParameters = {
  /** Sends one chunk: a JSON-RPC batch over HTTP, requests in flight together over a WebSocket. */
  send: (chunk: UpstreamRequest[]) => Promise<EntryOutcome[]>
  /** Requests per chunk. */
  chunkSize: number
  governor: Governor
}

/**
 * Sends many requests in one pass: cut into chunks of `chunkSize`, each sent when the governor
 * gives a slot, throttled chunks reported to it (it halves the window and honours Retry-After).
 * Each request comes back settled; a result `accept` refuses (e.g. `null` from a node behind) is a
 * transient failure. Nothing is retried here: the job that asked retries what failed (one owner of
 * retries, docs/indexer.md). A request the node rejects as wrong throws UpstreamRefusedError.
 */
export function createRequestMany({ send, chunkSize, governor }: RequestManyParameters) {
  return async function requestMany<T>(requests: readonly UpstreamRequest[], accept: (result: unknown) => boolean = (r) => r !== null): Promise<Settled<T>[]> {
    const settled = new Array<Settled<T>>(requests.length)
    const chunks: number[] = []
    for (let start = 0; start < requests.length; start += chunkSize) chunks.push(start)
    await Promise.all(
      chunks.map(async (start) => {
        const chunk = requests.slice(start, start + chunkSize)
        const release = await governor.acquire()
        try {
          const outcomes = await send(chunk)
          let throttled: UpstreamFailure | undefined
          outcomes.forEach((outcome, k) => {
            const failure = !outcome.ok ? outcome.failure : accept(outcome.result) ? undefined : missingResult
            if (failure === undefined) {
              settled[start + k] = { ok: true, result: outcome.ok ? (outcome.result as T) : (undefined as T) }
              return
            }
            if (!failure.retryable) throw new UpstreamRefusedError(`${chunk[k]?.method} failed: ${failure.reason}`)
            if (failure.throttled) throttled = failure
            settled[start + k] = { ok: false, failure }
          })
          governor.report(throttled ? 'throttled' : 'ok', throttled?.retryAfterMs)
        } finally {
          release()
        }
      }),
    )
    return settled
  }
}

const missingResult: UpstreamFailure = { retryable: true, throttled: false, reason: 'missing result (node behind?)' }

/** The failure to report for a pass with failed requests: a throttled one (it says most), else the first. */
export function worstFailure(settled: readonly Settled<unknown>[]): UpstreamFailure | undefined {
  let worst: UpstreamFailure | undefined
  for (const s of settled) {
    if (s.ok) continue
    if (worst === undefined || (s.failure.throttled && !worst.throttled)) worst = s.failure
  }
  return worst
}
