import type { Db } from '@uncle-rpc/db'
import { clearSignInFailures, pruneSignInFailures, recordSignInFailure, type SignInLockPolicy, signInWaitSeconds } from '@uncle-rpc/db/accounts'

/** Slows password guessing: failures per email and per client address lock further attempts for a while. */
export type SignInThrottle = {
  /** Seconds to wait before this email or address may try again; 0 = may try now. */
  retryAfter(email: string, address: string): Promise<number>
  failed(email: string, address: string): Promise<void>
  succeeded(email: string): Promise<void>
  /** Deletes forgotten failures (the dashboard calls it on its cleanup timer). */
  prune(): Promise<number>
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
}

/**
 * The sign-in throttle, kept in Postgres (`sign_in_failures`) so that every dashboard process
 * behind a load balancer counts the same failures: after `freeFailures` wrong passwords for an
 * email (or `freeFailuresPerAddress` from one address), every attempt is refused with 429 until a
 * lock of baseLockMs × 2^(extra failures) has passed, up to maxLockMs. A right password resets the
 * email. Times are the database's clock.
 */
export function createSignInThrottle({ db }: { db: Db }, parameters: CreateSignInThrottleParameters = {}): SignInThrottle {
  const { freeFailures = 5, freeFailuresPerAddress = 20, baseLockMs = 1000, maxLockMs = 15 * 60_000, windowMs = 15 * 60_000 } = parameters
  const perEmail: SignInLockPolicy = { freeFailures, baseLockMs, maxLockMs, windowMs }
  const perAddress: SignInLockPolicy = { freeFailures: freeFailuresPerAddress, baseLockMs, maxLockMs, windowMs }
  const emailKey = (email: string) => `e:${email}`
  const addressKey = (address: string) => `a:${address}`

  return {
    retryAfter: (email, address) => signInWaitSeconds(db, { keys: [emailKey(email), addressKey(address)] }),
    async failed(email, address) {
      await recordSignInFailure(db, { key: emailKey(email), policy: perEmail })
      await recordSignInFailure(db, { key: addressKey(address), policy: perAddress })
    },
    succeeded: (email) => clearSignInFailures(db, { key: emailKey(email) }),
    prune: () => pruneSignInFailures(db, { windowMs }),
  }
}
