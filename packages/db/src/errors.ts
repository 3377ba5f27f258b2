import { BaseError } from '@uncle-rpc/errors'

/** A value that cannot be stored in the column it was meant for (malformed hex, out of range). */
export class InvalidColumnValueError extends BaseError {
  constructor(column: string, reason: string) {
    super(`Cannot store value as ${column}: ${reason}`, { name: 'InvalidColumnValueError' })
  }
}

/** Creating the database or applying migrations failed. */
export class MigrationError extends BaseError {
  constructor(shortMessage: string, cause: unknown) {
    super(shortMessage, { name: 'MigrationError', cause, details: cause instanceof Error ? cause.message : String(cause) })
  }
}

/** Postgres's error fields that the db package reads. */
export type PgErrorFields = { code?: string; constraint?: string; detail?: string; message?: string }

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
