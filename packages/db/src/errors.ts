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
