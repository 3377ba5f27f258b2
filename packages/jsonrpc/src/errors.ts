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
