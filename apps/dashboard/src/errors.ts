import { BaseError } from '@uncle-rpc/chain'

/** A request the API refuses: the HTTP status and the message shown to the user (`{"error": message}`). */
export class ApiError extends BaseError {
  readonly status: number
  /** Seconds for Retry-After (429). */
  readonly retryAfter: number | undefined
  constructor(status: number, message: string, options: { retryAfter?: number } = {}) {
    super(message, { name: 'ApiError' })
    this.status = status
    this.retryAfter = options.retryAfter
  }
}

/** A bad flag of `uncle-rpc dashboard` or `uncle-rpc accounts` (exit code 2). */
export class UsageError extends BaseError {
  constructor(message: string) {
    super(message, { name: 'UsageError' })
  }
}
