import type { ResultBody } from './resultBody.js'

/** A JSON-RPC method: receives the request's `params` (possibly undefined) and the transport's context. */
export type JsonRpcMethod<C> = (params: unknown, context: C) => unknown

/** Method name → implementation. Names are matched exactly (case-sensitive), own keys only. */
export type JsonRpcMethods<C> = Readonly<Record<string, JsonRpcMethod<C>>>

declare const rawJsonBrand: unique symbol
/** Pre-serialized JSON a method returns instead of a value (text, or its UTF-8 bytes); written into the response verbatim. */
export type RawJson = { readonly [rawJsonBrand]: true; readonly json: string | Uint8Array }

export type CreateJsonRpcHandlerParameters<C> = {
  methods: JsonRpcMethods<C>
  /** Largest batch accepted (default 1000, geth's `--rpc.batch-request-limit`). Overridable per call. */
  maxBatchSize?: number | undefined
  /**
   * Called for anything a method throws that is not a JsonRpcError (the client only sees
   * `-32603 internal error` and the correlation id). Must not throw.
   */
  onInternalError?: ((error: unknown, correlationId: string, context: C) => void) | undefined
  /**
   * Reproduce geth v1.13 where it departs from plain JSON-RPC 2.0 (default false):
   * batch too large → `[{…, "id": <first call's id>, "error": …}]` (an array of one);
   * response objects sent to the server (no method, a result or error) get no answer;
   * `<`, `>`, `&`, U+2028, U+2029 inside string ids are echoed \u-escaped;
   * string params containing escape sequences reach methods undecoded (geth's hex decoders read
   * the raw text between the quotes, so `"0x\u0031"` is not `"0x1"` to them).
   */
  geth?: boolean | undefined
}

export type HandleOptions = {
  /** Overrides the handler's maxBatchSize for this call (e.g. the caller's plan limit). */
  maxBatchSize?: number | undefined
  /**
   * answerMessage only: a single call answered with a RawJson is returned as a ResultBody (the
   * response's parts, for a transport that writes bytes); text otherwise.
   */
  bytes?: boolean | undefined
}

/** One request of a message: its parsed value plus raw tokens the scanner cut from the text. */
export type ParsedEntry = {
  readonly value: unknown
  /** Raw JSON text of the last top-level `id` member; undefined when there is none. */
  readonly rawId: string | undefined
  /** Raw JSON text of `params`, kept only when it contains a backslash (see the `geth` option). */
  readonly rawParams: string | undefined
}

/** A request text after parsing: unparseable, one request, or a batch. */
export type ParsedMessage =
  | { readonly kind: 'parseError' }
  | { readonly kind: 'single'; readonly entry: ParsedEntry }
  | { readonly kind: 'batch'; readonly entries: readonly ParsedEntry[] }

/** The answers written in a response, by kind: results that are not null, null results, errors. */
export type Tally = { found: number; nulls: number; errors: number }

/** A message's answer: the response text or, with the `bytes` option, possibly a ResultBody (undefined = send no body); its answers by kind. */
export type Answered = { body: string | ResultBody | undefined } & Tally

/** The transport-free handler: request text in, response text out (undefined = send no body). */
export type JsonRpcHandler<C> = {
  handle(text: string, context: C, options?: HandleOptions): Promise<string | undefined>
  /** The same for a message already parsed with parseMessage (e.g. after counting batch entries). */
  handleMessage(message: ParsedMessage, context: C, options?: HandleOptions): Promise<string | undefined>
  /**
   * handleMessage with the count of error answers written, made where each answer is made (usage
   * is billed on it). A value, not a promise, when every method answered synchronously (a cache hit).
   */
  answerMessage(message: ParsedMessage, context: C, options?: HandleOptions): Answered | Promise<Answered>
}
