/** Slows password guessing: failures per email and per client address lock further attempts for a while. */
export type SignInThrottle = {
  /** Seconds to wait before this email or address may try again; 0 = may try now. */
  retryAfter(email: string, address: string): number
  failed(email: string, address: string): void
  succeeded(email: string): void
}

export type CreateSignInThrottleParameters = {
  /** Free failures per email before locking (the lock then doubles per failure). Default 5. */
  freeFailures?: number
  /** Free failures per client address (many emails from one place). Default 20. */
  freeFailuresPerAddress?: number
  /** First lock, doubled per further failure up to maxLockMs. Default 1 s. */
  baseLockMs?: number
  maxLockMs?: number
  /** Failures older than this are forgotten. Default 15 min. */
  windowMs?: number
  now?: () => number
}

type Entry = { failures: number; lockedUntil: number; lastFailure: number }

/**
 * In-memory sign-in throttle (one dashboard process): after `freeFailures` wrong passwords for an
 * email (or `freeFailuresPerAddress` from one address), every attempt is refused with 429 until a
 * lock of baseLockMs × 2^(extra failures) has passed, up to maxLockMs. A right password resets the email.
 */
export function createSignInThrottle(parameters: CreateSignInThrottleParameters = {}): SignInThrottle {
  const { freeFailures = 5, freeFailuresPerAddress = 20, baseLockMs = 1000, maxLockMs = 15 * 60_000, windowMs = 15 * 60_000, now = Date.now } = parameters
  const entries = new Map<string, Entry>()

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key)
    if (entry !== undefined && now() - entry.lastFailure > Math.max(windowMs, entry.lockedUntil - entry.lastFailure)) {
      entries.delete(key)
      return undefined
    }
    return entry
  }
  const wait = (key: string) => Math.max(0, Math.ceil(((live(key)?.lockedUntil ?? 0) - now()) / 1000))
  const fail = (key: string, free: number) => {
    const entry = live(key) ?? { failures: 0, lockedUntil: 0, lastFailure: 0 }
    entry.failures++
    entry.lastFailure = now()
    if (entry.failures >= free) entry.lockedUntil = now() + Math.min(maxLockMs, baseLockMs * 2 ** (entry.failures - free))
    // Note: bounded memory under a spray of random emails: the oldest entries go first.
    if (entries.size >= 100_000 && !entries.has(key)) entries.delete(entries.keys().next().value as string)
    entries.set(key, entry)
  }

  return {
    retryAfter: (email, address) => Math.max(wait(`e:${email}`), wait(`a:${address}`)),
    failed(email, address) {
      fail(`e:${email}`, freeFailures)
      fail(`a:${address}`, freeFailuresPerAddress)
    },
    succeeded(email) {
      entries.delete(`e:${email}`)
    },
  }
}
