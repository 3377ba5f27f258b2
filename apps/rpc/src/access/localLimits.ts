import type { KeyRecord } from './auth.js'
import { admitted, type RateVerdict } from './rateVerdict.js'

// While Redis is unreachable the limiter fails open to these: each process enforces a key's
// per-second limit on its own (so N processes admit up to N× the limit); daily limits are not
// enforced (only Redis knows the day's count).

/** Per-process per-second windows: key id → the second and the requests admitted in it. */
export function createLocalLimits(): (key: KeyRecord, cost: number) => RateVerdict {
  const windows = new Map<number, { second: number; used: number }>()
  return (key, cost) => {
    const second = Math.floor(Date.now() / 1000)
    let window = windows.get(key.id)
    if (window === undefined || window.second !== second) {
      // Note: bounded: a flood of distinct keys while Redis is down cannot grow this without end.
      if (windows.size > 100_000) windows.clear()
      window = { second, used: 0 }
      windows.set(key.id, window)
    }
    if (window.used + cost > key.requestsPerSecond)
      return { ok: false, kind: 'rps', currentRps: window.used + cost, allowedRps: key.requestsPerSecond, retryAfterSeconds: 1 }
    window.used += cost
    return admitted
  }
}
