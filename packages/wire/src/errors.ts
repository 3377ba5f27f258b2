import { BaseError } from '@uncle-rpc/errors'

// The wire's own errors: what a reader of bytes can tell its caller, with no JSON-RPC in it.

/** The client closed the connection before sending the whole request body. */
export class ClientAbortedError extends BaseError {
  constructor() {
    super('client closed the connection before sending the whole body', { name: 'ClientAbortedError' })
  }
}
