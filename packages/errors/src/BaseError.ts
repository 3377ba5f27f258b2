/**
 * The one base error of uncle-rpc, modeled on viem's: a short message for people, optional
 * details, and the cause kept for logs. Every package's domain errors subclass it; it lives in
 * its own package so that a package needing only errors does not depend on the chain code.
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
