import { InvalidRequestError, JsonRpcError, MethodNotFoundError } from './errors.js'
import { parseMessage, readRequest } from './parse.js'
import { parseWithRawStrings } from './rawId.js'
import { batchBody, bodyText, errorResponse, internalErrorResponse, isRawJson, resultResponse } from './response.js'
import { ResultBody } from './resultBody.js'
import type {
  Answered,
  Tally,
  CreateJsonRpcHandlerParameters,
  HandleOptions,
  JsonRpcHandler,
  JsonRpcMethod,
  ParsedEntry,
  ParsedMessage,
} from './types.js'

// The fixed bodies, as geth writes them (errorMessage(): id null).
const parseErrorBody = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}'
const emptyBatchBody = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}'
const batchTooLargeError = new InvalidRequestError('batch too large')
const invalidRequestError = new InvalidRequestError()

/**
 * Builds the transport-free JSON-RPC 2.0 handler: text (or a parseMessage result) in, response
 * text out. Batch entries run concurrently and independently; only JsonRpcErrors reach the client,
 * anything else becomes `-32603 internal error` with a correlation id in `data`.
 */
export function createJsonRpcHandler<C>(parameters: CreateJsonRpcHandlerParameters<C>): JsonRpcHandler<C> {
  // Note: a Map of own entries, so `toString` or `__proto__` never resolve to Object.prototype.
  const methods = new Map<string, JsonRpcMethod<C>>(Object.entries(parameters.methods))
  const defaultMaxBatchSize = parameters.maxBatchSize ?? 1000
  const geth = parameters.geth ?? false
  const { onInternalError } = parameters

  function failure(rawId: string | undefined, error: unknown, context: C): string | undefined {
    if (error instanceof JsonRpcError) {
      if (rawId === undefined) return undefined
      try {
        return errorResponse(rawId, error)
      } catch (serializeError) {
        // Note: unserializable `data` on a JsonRpcError is a server bug; report it as one.
        error = serializeError
      }
    }
    const { correlationId, body } = internalErrorResponse(rawId ?? 'null')
    onInternalError?.(error, correlationId, context)
    return rawId === undefined ? undefined : body
  }

  /** The response to a method's value (result, or error when it cannot be serialized); `bytes`: a RawJson answers as a ResultBody. */
  function settle(rawId: string | undefined, result: unknown, context: C, tally: Tally, bytes: boolean): string | ResultBody | undefined {
    if (rawId === undefined) return undefined
    try {
      const body = bytes && isRawJson(result) ? new ResultBody(rawId, result.json) : resultResponse(rawId, result)
      if (result === null || result === undefined) tally.nulls++
      else tally.found++
      return body
    } catch (error) {
      return fail(rawId, error, context, tally)
    }
  }

  function fail(rawId: string | undefined, error: unknown, context: C, tally: Tally): string | undefined {
    const body = failure(rawId, error, context)
    if (body !== undefined) tally.errors++
    return body
  }

  /**
   * One entry's answer; `tally` counts the answers written, by kind. Note: synchronous when the
   * method returns a value (a cached answer), so such a call costs no promise or microtask.
   * `bytes`: see HandleOptions (only a single call's answer is ever bytes).
   */
  function run(entry: ParsedEntry, context: C, tally: Tally, bytes: boolean): string | ResultBody | undefined | Promise<string | ResultBody | undefined> {
    const request = readRequest(entry, geth)
    if (request.kind === 'ignore') return undefined
    if (request.kind === 'invalid') {
      tally.errors++
      return errorResponse(request.rawId, invalidRequestError)
    }
    const { rawId } = request
    const method = methods.get(request.method)
    if (method === undefined) {
      if (rawId === undefined) return undefined
      tally.errors++
      return errorResponse(rawId, new MethodNotFoundError(request.method))
    }
    let result: unknown
    try {
      const params = geth && entry.rawParams !== undefined ? parseWithRawStrings(entry.rawParams) : request.params
      result = method(params, context)
    } catch (error) {
      return fail(rawId, error, context, tally)
    }
    if (result instanceof Promise)
      return result.then(
        (value: unknown) => settle(rawId, value, context, tally, bytes),
        (error: unknown) => fail(rawId, error, context, tally),
      )
    return settle(rawId, result, context, tally, bytes)
  }

  function batchTooLarge(entries: readonly ParsedEntry[], limit: number): string {
    // Note: the limit in force (the server's, or the key's plan's) is said, so a client knows how to split.
    if (!geth) return errorResponse('null', new InvalidRequestError(`batch too large: at most ${limit} calls per batch`))
    // Note: geth answers with an array of one, carrying the id of the batch's first call.
    let rawId = 'null'
    for (const entry of entries) {
      const request = readRequest(entry, true)
      if (request.kind === 'call' && request.rawId !== undefined) {
        rawId = request.rawId
        break
      }
    }
    return '[' + errorResponse(rawId, batchTooLargeError) + ']'
  }

  function answerMessage(message: ParsedMessage, context: C, options?: HandleOptions): Answered | Promise<Answered> {
    if (message.kind === 'parseError') return { body: parseErrorBody, found: 0, nulls: 0, errors: 1 }
    const tally: Tally = { found: 0, nulls: 0, errors: 0 }
    if (message.kind === 'single') {
      const body = run(message.entry, context, tally, options?.bytes === true)
      if (body instanceof Promise) return body.then((text) => ({ body: text, ...tally }))
      return { body, ...tally }
    }
    const { entries } = message
    if (entries.length === 0) return { body: emptyBatchBody, found: 0, nulls: 0, errors: 1 }
    const limit = options?.maxBatchSize ?? defaultMaxBatchSize
    if (entries.length > limit) return { body: batchTooLarge(entries, limit), found: 0, nulls: 0, errors: 1 }
    // Note: batch entries are never bytes (bytes: false), so each response is text or none.
    return Promise.all(entries.map((entry) => run(entry, context, tally, false) as string | undefined | Promise<string | undefined>)).then((responses) => ({
      body: batchBody(responses),
      ...tally,
    }))
  }

  const handleMessage = async (message: ParsedMessage, context: C, options?: HandleOptions) => {
    const { body } = await answerMessage(message, context, options)
    return body === undefined ? undefined : bodyText(body)
  }

  return {
    handle: (text, context, options) => handleMessage(parseMessage(text), context, options),
    handleMessage,
    answerMessage,
  }
}
