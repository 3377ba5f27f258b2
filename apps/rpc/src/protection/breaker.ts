export type BreakerState = 'closed' | 'open' | 'half-open'

export type BreakerParameters = {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number
  /** How long an open circuit refuses calls before one probe is let through. */
  cooldownMs: number
  /** Told of every state change (for logs); `failures` is the consecutive count at that moment. */
  onChange?: ((change: { from: BreakerState; to: BreakerState; failures: number; reason: string | undefined }) => void) | undefined
}

/** A circuit breaker: ask `admit()` before a call, report its outcome with `succeeded()` or `failed()`. */
export type Breaker = {
  /** Whether a call may go out now (moving open → half-open once the cooldown is over). */
  admit(): boolean
  succeeded(): void
  /** `reason` is passed on to `onChange` when this failure opens the circuit. */
  failed(reason?: string): void
  readonly state: BreakerState
}

/**
 * closed → open after `failureThreshold` consecutive failures; open refuses at once for
 * `cooldownMs`; then half-open lets one probe through (the others are refused) — its success
 * closes, its failure re-opens. A call that was already in flight when the circuit opened may
 * still report: a success closes the circuit (the other side answers again), a failure only
 * counts. Used for the failover partner and for the database reads of the method.
 */
export function createBreaker({ failureThreshold, cooldownMs, onChange }: BreakerParameters): Breaker {
  // Invariants: failures counts consecutive failures; openUntil is set while open; probing is
  // true only in half-open, while the one probe is in flight.
  let state: BreakerState = 'closed'
  let failures = 0
  let openUntil = 0
  let probing = false

  function move(to: BreakerState, reason?: string) {
    const from = state
    state = to
    if (from !== to) onChange?.({ from, to, failures, reason })
  }

  return {
    get state() {
      return state
    },
    admit() {
      if (state === 'closed') return true
      if (state === 'open') {
        if (Date.now() < openUntil) return false
        move('half-open')
      }
      if (probing) return false
      probing = true
      return true
    },
    succeeded() {
      failures = 0
      probing = false
      move('closed')
    },
    failed(reason) {
      failures++
      if (state === 'half-open' || (state === 'closed' && failures >= failureThreshold)) {
        openUntil = Date.now() + cooldownMs
        probing = false
        move('open', reason)
      }
    },
  }
}
