import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '@uncle-rpc/config'
import { errorResponse, internalErrorResponse, InvalidRequestError } from '@uncle-rpc/jsonrpc'
import { type Body, bodyBytes, type DiscardBound, discardBody, readBody } from '@uncle-rpc/wire'
import type { Answer } from '../pipeline/answer.js'
import { type AdmissionDeps, createAdmission, failoverRequested } from '../admission/admission.js'
import type { RpcLimits } from './limits.js'
import { originForm, rpcPath } from './routes.js'

/** Admission's (network, key, overload) and the answer's. */
export type HttpDeps = AdmissionDeps & {
  answer: Answer
  limits: RpcLimits
  logger: Logger
  /** True once the server is closing: every answer then ends its connection (Connection: close). */
  closing?: (() => boolean) | undefined
}

/**
 * Sends `text` (or its bytes, or a lazy body written into bytes) as application/json; `close` ends the connection (used when the rest
 * of the body is not read). Note: text is encoded to a Buffer here: node then writes the bytes as
 * they are, where a string is flattened and encoded again on the way to the socket (5–28% less
 * CPU for a cached answer in four alternating profiled pairs).
 */
function sendJson(res: ServerResponse, status: number, text: Body, close = false, extraHeaders?: readonly string[]): void {
  const body = typeof text === 'string' ? Buffer.from(text) : text instanceof Uint8Array ? text : bodyBytes(text)
  // Note: the flat array form skips node's per-header object walk.
  const headers = ['content-type', 'application/json', 'content-length', String(body.length)]
  if (close) headers.push('connection', 'close')
  if (extraHeaders !== undefined) headers.push(...extraHeaders)
  res.writeHead(status, headers)
  res.end(body)
}

/** CORS preflight answer: any origin may ask (a key's Origin allowlist decides on the POST itself). */
const preflightHeaders = [
  'access-control-allow-origin',
  '*',
  'access-control-allow-methods',
  'POST, OPTIONS',
  'access-control-allow-headers',
  'content-type, authorization, enable-failover',
  'access-control-max-age',
  '86400',
]

/**
 * The JSON-RPC endpoint as a plain node:http listener, ahead of Express's router (Express costs
 * ~150 µs a request, measured on 2 cores): returns false for anything that is not `POST …/v3/…`, which
 * then goes to the Express app (an OPTIONS preflight on the same paths gets 204 here). The checks
 * before the body (admission.ts: overload, network, key, restrictions, Content-Type), then the body
 * size (413); then answer() (rate limits → 429, failover, the handler). An all-notification
 * batch gets 200 with an empty body. The fast path (fastRpc.ts) answers the same requests the same
 * way when it can read them strictly; this listener answers the rest.
 */
export function createHttpHandler(deps: HttpDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { answer, limits, logger, closing = () => false } = deps
  const admit = createAdmission(deps)
  // Note: checked when the answer is written, not tracked per response: the answers in flight when
  // closing starts end their connections without a listener or a set entry per request.
  const send = (res: ServerResponse, status: number, body: Body, close = false, headers?: readonly string[]) =>
    sendJson(res, status, body, close || closing(), headers)
  const tooLarge = errorResponse('null', new InvalidRequestError(`request body too large: the limit is ${limits.maxBodyBytes} bytes`))
  // Note: up to 8× the limit or 5 s of a refused body is read before the 413; past that the connection is cut.
  const discardBound: DiscardBound = { maxBytes: 8 * limits.maxBodyBytes, maxMs: Math.min(5000, limits.requestTimeoutMs) }
  const refuseTooLarge = async (req: IncomingMessage, res: ServerResponse, headers: readonly string[]) => {
    const ended = await discardBody(req, discardBound)
    // Note: req itself is destroyed once read to the end; the socket tells whether the client is there.
    if (!req.socket.destroyed) send(res, 413, tooLarge, true, headers)
    if (!ended) res.once('finish', () => req.socket.destroy())
  }

  async function serve(req: IncomingMessage, res: ServerResponse, pathNetwork: string | undefined, key: string | undefined) {
    const { headers } = req
    const checked = admit({
      pathNetwork,
      key,
      host: headers.host,
      origin: headers.origin,
      userAgent: headers['user-agent'],
      authorization: headers.authorization,
      contentType: headers['content-type'],
    })
    const admitted = await checked
    // Note: node reads and drops an unread body after the answer, and the connection stays open (a reconnect would cost more).
    if (!admitted.ok) return send(res, admitted.status, admitted.body, false, admitted.headers)
    const declared = headers['content-length']
    if (declared !== undefined && Number(declared) > limits.maxBodyBytes) return refuseTooLarge(req, res, admitted.headers)
    const read = await readBody(req, limits.maxBodyBytes)
    if (read.kind === 'tooLarge') return refuseTooLarge(req, res, admitted.headers)
    const outcome = answer(read.text, admitted.key, admitted.network, failoverRequested(headers['enable-failover']))
    const { status, body, retryAfter, failover } = await outcome
    send(res, status, body, false, outcomeHeaders(admitted.headers, retryAfter, failover))
  }

  function fail(req: IncomingMessage, res: ServerResponse, error: unknown) {
    // Note: req itself is destroyed once its body was read; the socket says whether the client is gone.
    if (req.socket.destroyed || res.headersSent) {
      res.destroy()
      return
    }
    send(res, 500, failedRequestBody(logger, error), true)
  }

  return (req, res) => {
    if (req.method !== 'POST') {
      if (req.method !== 'OPTIONS' || !rpcPath.test(req.url ?? '')) return false
      res.writeHead(204, preflightHeaders)
      res.end()
      return true
    }
    let match = rpcPath.exec(req.url ?? '')
    if (match === null) {
      // Note: only an absolute-form target is read again (node:http keeps it whole in req.url); its authority is the Host.
      const target = originForm(req.url ?? '')
      if (target.authority === undefined || (match = rpcPath.exec(target.path)) === null) return false
      req.headers.host = target.authority
    }
    serve(req, res, match[1], match[2]).catch((error: unknown) => fail(req, res, error))
    return true
  }
}

/** The headers of an answer: the admission's (CORS), Retry-After on a 429, `X-Failover: partner` when the partner answered. */
export function outcomeHeaders(base: readonly string[], retryAfter: number | undefined, failover: boolean | undefined): readonly string[] {
  if (retryAfter === undefined && failover !== true) return base
  const extra = [...base]
  if (retryAfter !== undefined) extra.push('retry-after', String(retryAfter))
  if (failover === true) extra.push('x-failover', 'partner')
  return extra
}

/** The body of a 500 for a request that failed (node:http, the fast path, Express): a fresh correlation id, logged with the error. */
export function failedRequestBody(logger: Logger, error: unknown): string {
  const { correlationId, body } = internalErrorResponse('null')
  logger.error({ msg: 'request failed', correlation_id: correlationId, error: (error as Error | undefined)?.message })
  return body
}
