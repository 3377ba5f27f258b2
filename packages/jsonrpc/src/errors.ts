import { BaseError } from '@uncle-rpc/errors'

export type JsonRpcErrorOptions = {
  /** Sent as `error.data` (omitted when undefined or null). Must be JSON-serializable. */
  data?: unknown
  /** Kept for logs, never sent. */
  cause?: unknown
}

/**
 * An error that goes over the wire as `{"code":…,"message":…[,"data":…]}`: the message is sent
 * as is, so it must never carry internal text. Use it directly for codes without a subclass
 * (e.g. -32000 `invalid project id`, -32002, -32005 with rate data).
 */
export class JsonRpcError extends BaseError {
  override name = 'JsonRpcError'
  readonly code: number
  readonly data: unknown

  constructor(code: number, message: string, options: JsonRpcErrorOptions = {}) {
    super(message, { cause: options.cause })
    this.code = code
    this.data = options.data
  }
}

/** -32700: the request text is not JSON. */
export class ParseError extends JsonRpcError {
  static readonly code = -32700 as const
  override name = 'ParseError'
  constructor(message = 'parse error', options?: JsonRpcErrorOptions) {
    super(ParseError.code, message, options)
  }
}

/** -32600: not a valid request object (geth's messages: `invalid request`, `empty batch`, `batch too large`). */
export class InvalidRequestError extends JsonRpcError {
  static readonly code = -32600 as const
  override name = 'InvalidRequestError'
  constructor(message = 'invalid request', options?: JsonRpcErrorOptions) {
    super(InvalidRequestError.code, message, options)
  }
}

/** -32601 with geth's text: `the method X does not exist/is not available`. */
export class MethodNotFoundError extends JsonRpcError {
  static readonly code = -32601 as const
  override name = 'MethodNotFoundError'
  constructor(method: string, options?: JsonRpcErrorOptions) {
    super(MethodNotFoundError.code, `the method ${method} does not exist/is not available`, options)
  }
}

/** -32601 with our own text, for a path or network that does not exist here (the "method" is the endpoint). */
export class NotFoundError extends JsonRpcError {
  static readonly code = MethodNotFoundError.code
  override name = 'NotFoundError'
  constructor(message: string, options?: JsonRpcErrorOptions) {
    super(NotFoundError.code, message, options)
  }
}

/** -32602: bad params; params.ts builds geth's exact messages. */
export class InvalidParamsError extends JsonRpcError {
  static readonly code = -32602 as const
  override name = 'InvalidParamsError'
  constructor(message: string, options?: JsonRpcErrorOptions) {
    super(InvalidParamsError.code, message, options)
  }
}

/** -32603: what the client sees for any unexpected failure (with a correlation id in `data`). */
export class InternalError extends JsonRpcError {
  static readonly code = -32603 as const
  override name = 'InternalError'
  constructor(message = 'internal error', options?: JsonRpcErrorOptions) {
    super(InternalError.code, message, options)
  }
}

/** -32000 (geth's generic server error; Infura's `invalid project id`, `project id required in the url`). */
export class ServerError extends JsonRpcError {
  static readonly code = -32000 as const
  override name = 'ServerError'
  constructor(message: string, options?: JsonRpcErrorOptions) {
    super(ServerError.code, message, options)
  }
}

/** -32002 `rejected due to project ID settings`: the key's restrictions refused the request. */
export class RejectedError extends JsonRpcError {
  static readonly code = -32002 as const
  override name = 'RejectedError'
  constructor(message = 'rejected due to project ID settings', options?: JsonRpcErrorOptions) {
    super(RejectedError.code, message, options)
  }
}

/** -32005: a limit was exceeded (request rate, daily count, connections); `data` says by how much. */
export class LimitExceededError extends JsonRpcError {
  static readonly code = -32005 as const
  override name = 'LimitExceededError'
  constructor(message: string, options?: JsonRpcErrorOptions) {
    super(LimitExceededError.code, message, options)
  }
}

/** The codes above by name, for code that reads other servers' errors (e.g. an upstream node's). */
export const jsonRpcErrorCodes = Object.freeze({
  parseError: ParseError.code,
  invalidRequest: InvalidRequestError.code,
  methodNotFound: MethodNotFoundError.code,
  invalidParams: InvalidParamsError.code,
  internalError: InternalError.code,
  serverError: ServerError.code,
  rejected: RejectedError.code,
  limitExceeded: LimitExceededError.code,
})
