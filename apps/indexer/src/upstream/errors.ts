import { BaseError, NonRetryableError } from '@uncle-rpc/errors'

/**
 * The upstream node kept failing after the request layer's retries, or its chain changed while a
 * run was being fetched: worth another job attempt later.
 */
export class UpstreamError extends BaseError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { name: 'UpstreamError', ...options })
  }
}

/** The node rejects the request itself (HTTP 4xx, JSON-RPC -32600/-32601/-32602): asking again cannot help. */
export class UpstreamRefusedError extends NonRetryableError {
  constructor(message: string) {
    super(message, { name: 'UpstreamRefusedError' })
  }
}
