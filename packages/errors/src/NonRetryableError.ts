import { BaseError } from './BaseError.js'

/**
 * An error that doing the same work again would meet again: a file that fails verification, a
 * request the node rejects as malformed, a source that is no longer configured. Subclass it to
 * say so; the job layer (the indexer's worker) fails such a job at once instead of spending its
 * attempts, and nothing re-queues it by itself.
 */
export class NonRetryableError extends BaseError {
  constructor(shortMessage: string, options: { details?: string; cause?: unknown; name?: string } = {}) {
    super(shortMessage, { name: 'NonRetryableError', ...options })
  }
}
