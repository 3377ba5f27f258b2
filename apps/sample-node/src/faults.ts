import { createRng } from './rng.js'

// Fault injection for resilience tests: what a flaky or overloaded node (or the proxy in front
// of it) does to an HTTP request. One decision per HTTP request, from a seeded stream.

export type FaultOptions = {
  /** Probability per request of an error: HTTP 500, 502, 503 or JSON-RPC -32000 (equally likely). */
  errorRate?: number | undefined
  /** Extra delay per request, uniform in [min, max] ms. */
  latencyMs?: readonly [number, number] | undefined
  /** Requests per second served; more within the same second get HTTP 429 + Retry-After. */
  rateLimitRps?: number | undefined
  /** Probability per request that the connection is destroyed mid-request. */
  dropRate?: number | undefined
  seed?: number | undefined
}

export type FaultDecision =
  | { kind: 'none'; delayMs: number }
  | { kind: 'rateLimited'; retryAfterSeconds: number }
  | { kind: 'drop'; delayMs: number; afterHeaders: boolean }
  | { kind: 'httpError'; delayMs: number; status: 500 | 502 | 503 }
  | { kind: 'rpcError'; delayMs: number }

export type Faults = {
  /** What to do with the next request. */
  decide(): FaultDecision
  /** Counts of decisions so far, by kind. */
  counts(): Record<FaultDecision['kind'], number>
}

/** Whether any fault is configured. */
export function hasFaults(options: FaultOptions): boolean {
  return Boolean(options.errorRate || options.latencyMs || options.rateLimitRps || options.dropRate)
}

/** Builds the fault injector; `now` is injectable for tests (ms). */
export function createFaults(options: FaultOptions, now: () => number = Date.now): Faults {
  const rng = createRng(options.seed ?? 1, 0x6661756c)
  const counts = { none: 0, rateLimited: 0, drop: 0, httpError: 0, rpcError: 0 }
  let windowStart = Number.NEGATIVE_INFINITY
  let windowCount = 0

  const decideKind = (): FaultDecision => {
    if (options.rateLimitRps !== undefined) {
      const t = now()
      if (t - windowStart >= 1000) {
        windowStart = t
        windowCount = 0
      }
      if (++windowCount > options.rateLimitRps) {
        // Note: Retry-After has whole seconds; the window ends within one.
        return { kind: 'rateLimited', retryAfterSeconds: 1 }
      }
    }
    const [min, max] = options.latencyMs ?? [0, 0]
    const delayMs = min + Math.round(rng.float() * (max - min))
    if (options.dropRate && rng.float() < options.dropRate) return { kind: 'drop', delayMs, afterHeaders: rng.float() < 0.5 }
    if (options.errorRate && rng.float() < options.errorRate) {
      const which = rng.int(4)
      if (which === 3) return { kind: 'rpcError', delayMs }
      return { kind: 'httpError', delayMs, status: ([500, 502, 503] as const)[which] as 500 | 502 | 503 }
    }
    return { kind: 'none', delayMs }
  }

  return {
    decide() {
      const decision = decideKind()
      counts[decision.kind]++
      return decision
    },
    counts: () => ({ ...counts }),
  }
}

/**
 * Parses `--fault-latency-ms`: `200` or `50-500`.
 * Returns undefined for an invalid range.
 */
export function parseLatencyRange(text: string): [number, number] | undefined {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text.trim())
  if (!match) return undefined
  const min = Number(match[1])
  const max = match[2] === undefined ? min : Number(match[2])
  return max >= min ? [min, max] : undefined
}
