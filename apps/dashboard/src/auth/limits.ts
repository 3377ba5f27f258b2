import type { Db } from '@uncle-rpc/db'
import { hitRequestLimit, pruneRequestLimits, type RequestLimitPolicy } from '@uncle-rpc/db/accounts'
import { ApiError } from '../errors.js'

// Abuse limits of the dashboard, per client address (sign-ups, sign-in attempts, reset emails),
// per email (reset emails: no mail bombing) and per account (verification emails, upgrade
// requests). Counted in Postgres (request_limits), so every dashboard process refuses alike.

/** What is limited, with the words of its 429 message. */
const limitText = {
  signup: 'sign-ups from your address',
  signin: 'sign-in attempts from your address',
  reset: 'password reset requests from your address',
  resetEmail: 'password reset emails for this address',
  verifyEmail: 'verification emails',
  upgrade: 'upgrade requests',
} as const
export type LimitName = keyof typeof limitText

const hour = 3_600_000
/** The defaults: generous for people, tight for scripts. */
const defaultRequestLimits: Record<LimitName, RequestLimitPolicy> = {
  signup: { limit: 10, windowMs: hour },
  signin: { limit: 60, windowMs: 15 * 60_000 },
  reset: { limit: 10, windowMs: hour },
  resetEmail: { limit: 3, windowMs: hour },
  verifyEmail: { limit: 3, windowMs: hour },
  upgrade: { limit: 5, windowMs: 24 * hour },
}

export type RequestLimits = {
  /** Counts one request of `subject` (an address, an email, an account id) under `name`; 429 with Retry-After past the limit. */
  check(name: LimitName, subject: string | number): Promise<void>
  /** Deletes finished windows (the dashboard's cleanup timer). */
  prune(): Promise<number>
}

export function createRequestLimits({ db }: { db: Db }, overrides: Partial<Record<LimitName, RequestLimitPolicy>> = {}): RequestLimits {
  const policies = { ...defaultRequestLimits, ...overrides }
  const longest = Math.max(...Object.values(policies).map((p) => p.windowMs))
  return {
    async check(name, subject) {
      const { allowed, retryAfter } = await hitRequestLimit(db, { key: `${name}:${subject}`, policy: policies[name] })
      if (!allowed) throw new ApiError(429, `too many ${limitText[name]}: try again in ${retryAfter} s`, { retryAfter })
    },
    prune: () => pruneRequestLimits(db, { windowMs: longest }),
  }
}
