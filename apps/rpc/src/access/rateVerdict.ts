// The rate limiter's answer, shared by the Redis path and the per-process fallback.

/** The outcome of taking requests from a key's budgets. */
export type RateVerdict =
  | { ok: true }
  | { ok: false; kind: 'rps'; currentRps: number; allowedRps: number; retryAfterSeconds: number }
  | { ok: false; kind: 'daily'; allowedDaily: number; retryAfterSeconds: number }

export type Refusal = RateVerdict & { ok: false }

// Note: one frozen object for every admission: the hot path allocates nothing to say yes.
export const admitted: RateVerdict = Object.freeze({ ok: true })
