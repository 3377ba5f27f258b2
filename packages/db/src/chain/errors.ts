import { BaseError } from '@uncle-rpc/errors'
import type { PgErrorFields } from '../errors.js'

/** A different canonical block is already stored at a height being written (a reorg the caller must resolve first). */
export class CanonicalBlockConflictError extends BaseError {
  constructor(network: string, cause: PgErrorFields) {
    super(`network "${network}": another canonical block is already stored at a height being written`, {
      name: 'CanonicalBlockConflictError',
      cause,
      ...(cause.detail ? { details: cause.detail } : {}),
    })
  }
}

/** Rows were to be written for a network that `registerNetwork` never registered (nothing was written). */
export class UnknownNetworkError extends BaseError {
  constructor(network: string) {
    super(`network "${network}" is not registered (call registerNetwork first)`, { name: 'UnknownNetworkError' })
  }
}

/** Any other failure of a write (connection lost, server shutting down…): usually worth retrying. */
export class DatabaseWriteError extends BaseError {
  constructor(network: string, cause: PgErrorFields) {
    super(`network "${network}": writing blocks failed: ${cause.message ?? 'unknown error'}`, {
      name: 'DatabaseWriteError',
      cause,
    })
  }
}
