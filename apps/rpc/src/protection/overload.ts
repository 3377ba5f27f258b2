import { errorResponse, LimitExceededError } from '@uncle-rpc/jsonrpc'

// Overload. The listen backlog holds a burst of new connections until they are accepted. Load
// shedding: when the event loop falls behind, a request read now has already waited that
// long (in the kernel's socket buffers), and every request answered makes the next ones wait
// longer. Past a bound, new requests get a fast 503 instead, which costs a fraction of an answer,
// so the process catches up, and the clients (or a load balancer) retry after Retry-After.

/** listen(2) backlog: room for a burst of thousands of new connections (node's default, 511, overflows under 2,000 clients connecting at once, who then wait for SYN retries: 1 s, 3 s, 7 s…). */
export const defaultListenBacklog = 4096
/** Default bound of the event loop's lag before new requests are shed (ms). */
export const defaultMaxEventLoopLagMs = 500
/** Seconds a shed client is told to wait (Retry-After, `data.backoff_seconds`). */
export const shedRetryAfterSeconds = 1

export type EventLoopLag = {
  /** How far behind the event loop is now (ms): the lag of the running turn, or of the last sample if larger (until the next sample). */
  lagMs(): number
  /** True while the lag is over the bound (always false when the bound is 0). */
  behind(): boolean
  stop(): void
}

/**
 * Event-loop lag from a timer every `sampleMs`: the lag is how late it fires. Note: the check
 * also counts the time since the last tick, so a turn that runs long (a burst of requests read
 * at once) starts shedding within itself, not only once the timer fires after it.
 */
export function createEventLoopLag({ maxLagMs, sampleMs = 20 }: { maxLagMs: number; sampleMs?: number }): EventLoopLag {
  if (maxLagMs <= 0) return { lagMs: () => 0, behind: () => false, stop: () => undefined }
  let last = performance.now()
  let lastLag = 0
  const timer = setInterval(() => {
    const now = performance.now()
    lastLag = Math.max(0, now - last - sampleMs)
    last = now
  }, sampleMs)
  timer.unref()
  // Note: the last sample counts until the next one replaces it, however long the process waits
  // for a core in between (a clock window here let requests of a stalled turn through on a loaded machine).
  const lagMs = () => Math.max(0, performance.now() - last - sampleMs, lastLag)
  return { lagMs, behind: () => lagMs() > maxLagMs, stop: () => clearInterval(timer) }
}

/** The JSON-RPC error of a shed message: -32005 with the backoff, id as given (null when not read). */
export function shedBody(rawId = 'null'): string {
  return errorResponse(rawId, new LimitExceededError('server busy: request shed, retry later', { data: { backoff_seconds: shedRetryAfterSeconds } }))
}
