/**
 * Paces one network's upstream traffic: an AIMD cap on requests in flight (halved on
 * 429/5xx/timeouts, grown by one per success streak) and a shared pause that honours
 * `Retry-After`, so a throttled node is slowed down as a whole rather than hammered by retries.
 */
export type Governor = {
  /** Waits for a slot (and for any pause); returns the release function. */
  acquire(): Promise<() => void>
  /** Records an outcome: `throttled` shrinks the window; `ok` grows it slowly. */
  report(outcome: 'ok' | 'throttled', retryAfterMs?: number): void
  /** Current cap on requests in flight (for progress logs). */
  readonly limit: number
}

export function createGovernor({ max, min = 1 }: { max: number; min?: number }): Governor {
  // Invariant: 0 <= inFlight; waiters are resolved in FIFO order while inFlight < limit.
  let limit = max
  let inFlight = 0
  let okStreak = 0
  let pausedUntil = 0
  const waiters: (() => void)[] = []

  const pump = () => {
    while (waiters.length > 0 && inFlight < Math.floor(limit) && Date.now() >= pausedUntil) {
      inFlight++
      waiters.shift()?.()
    }
    if (waiters.length > 0 && Date.now() < pausedUntil) setTimeout(pump, pausedUntil - Date.now()).unref()
  }

  return {
    get limit() {
      return Math.floor(limit)
    },
    acquire() {
      return new Promise((resolve) => {
        waiters.push(() =>
          resolve(() => {
            inFlight--
            pump()
          }),
        )
        pump()
      })
    },
    report(outcome, retryAfterMs) {
      if (outcome === 'ok') {
        if (++okStreak >= Math.floor(limit) && limit < max) {
          limit = Math.min(max, limit + 1)
          okStreak = 0
          pump()
        }
        return
      }
      okStreak = 0
      limit = Math.max(min, limit / 2)
      if (retryAfterMs !== undefined && retryAfterMs > 0) pausedUntil = Math.max(pausedUntil, Date.now() + retryAfterMs)
    },
  }
}
