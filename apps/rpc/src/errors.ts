import { BaseError } from '@uncle-rpc/errors'

/** The rate limit script answered with something else than its six numbers. */
export class RateLimitReplyError extends BaseError {
  constructor() {
    super('unexpected reply from the rate limit script', { name: 'RateLimitReplyError' })
  }
}

/** Redis is not connected: the rate limits fall back to per-process counting. */
export class RedisUnavailableError extends BaseError {
  constructor(status: string) {
    super(`Redis connection ${status}`, { name: 'RedisUnavailableError' })
  }
}

/** A dependency call (a key lookup, a readiness check) did not finish within its deadline. */
export class DeadlineError extends BaseError {
  constructor(what: string, ms: number) {
    super(`${what}: no answer within ${ms} ms`, { name: 'DeadlineError' })
  }
}
