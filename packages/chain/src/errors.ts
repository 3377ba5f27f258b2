/**
 * The one base error of uncle-rpc, modeled on viem's: a short message for people, optional
 * details, and the cause kept for logs. Domain errors subclass it.
 */
export class BaseError extends Error {
  override name = 'BaseError'
  readonly shortMessage: string
  readonly details: string | undefined

  constructor(shortMessage: string, options: { details?: string; cause?: unknown; name?: string } = {}) {
    super(options.details ? `${shortMessage}\n\nDetails: ${options.details}` : shortMessage, {
      cause: options.cause,
    })
    this.shortMessage = shortMessage
    this.details = options.details
    if (options.name) this.name = options.name
  }
}

/** A header or block object from a node (or a file) that does not have the expected shape. */
export class InvalidHeaderError extends BaseError {
  readonly field: string
  constructor({ field, value, reason }: { field: string; value: unknown; reason: string }) {
    super(`Invalid header field "${field}": ${reason}`, {
      details: `got ${JSON.stringify(value)?.slice(0, 200)}`,
      name: 'InvalidHeaderError',
    })
    this.field = field
  }
}
