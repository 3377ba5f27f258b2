import { BaseError } from '@uncle-rpc/errors'

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
