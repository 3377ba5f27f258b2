import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '@uncle-rpc/config'
import { errorResponse, InternalError, InvalidRequestError } from '@uncle-rpc/jsonrpc'
import type { Answer, Outcome } from './answer.js'
import type { Auth } from '../access/auth.js'
import { accessAllowed, rejectedBody } from '../access/keyAccess.js'
import { type DiscardBound, discardBody, isJsonContentType, readBody } from './httpBody.js'
import type { RpcLimits } from './limits.js'
import type { NetworkResolver, ServedNetwork } from './network.js'
import { shedBody, shedRetryAfterSeconds } from './overload.js'
import { rpcPath } from './routes.js'

export type HttpDeps = {
  resolver: NetworkResolver
  auth: Auth
  answer: Answer
  limits: RpcLimits
  logger: Logger
  /** True once the server is closing: every answer then ends its connection (Connection: close). */
  closing?: (() => boolean) | undefined
  /** True while the process is too far behind to take new requests (overload.ts): they get 503 at once. */
  overloaded?: (() => boolean) | undefined
  /** Told about each request shed (metrics). */
  onShed?: (() => void) | undefined
}

/**
 * Sends `text` (or its bytes) as application/json; `close` ends the connection (used when the rest
 * of the body is not read). Note: text is encoded to a Buffer here: node then writes the bytes as
 * they are, where a string is flattened and encoded again on the way to the socket (5–28% less
 * CPU for a cached answer in four alternating profiled pairs).
 */
export function sendJson(res: ServerResponse, status: number, text: string | Uint8Array, close = false, extraHeaders?: readonly string[]): void {
  const body = typeof text === 'string' ? Buffer.from(text) : text
  // Note: the flat array form skips node's per-header object walk.
  const headers = ['content-type', 'application/json', 'content-length', String(body.length)]
  if (close) headers.push('connection', 'close')
  if (extraHeaders !== undefined) headers.push(...extraHeaders)
  res.writeHead(status, headers)
  res.end(body)
}

/** Sends an answer: Retry-After on a 429, `X-Failover: partner` when the partner answered. */
function sendOutcome(res: ServerResponse, { status, body, retryAfter, failover }: Outcome, close: boolean): void {
  if (retryAfter === undefined && failover !== true) return sendJson(res, status, body, close)
  const extra: string[] = []
  if (retryAfter !== undefined) extra.push('retry-after', String(retryAfter))
  if (failover === true) extra.push('x-failover', 'partner')
  sendJson(res, status, body, close, extra)
}

const failoverHeader = /^\s*true\s*$/i
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
 * then goes to the Express app (an OPTIONS preflight on the same paths gets 204 here). Checks in
 * order: overload (503 -32005 with Retry-After, before anything else is read: the body is
 * discarded), network (404), key (401; 503 + Retry-After when it cannot be checked now), the key's restrictions (403 -32002), Content-Type (415), body size (413); then answer() (rate limits → 429, failover, the handler). An all-notification
 * batch gets 200 with an empty body.
 */
export function createHttpHandler(deps: HttpDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { resolver, auth, answer, limits, logger, closing = () => false, overloaded = () => false, onShed } = deps
  const shed = Buffer.from(shedBody())
  const shedHeaders = ['retry-after', String(shedRetryAfterSeconds)]
  // Note: checked when the answer is written, not tracked per response: the answers in flight when
  // closing starts end their connections without a listener or a set entry per request.
  const send = (res: ServerResponse, status: number, body: string | Uint8Array, close = false) => sendJson(res, status, body, close || closing())
  const unsupportedType = errorResponse('null', new InvalidRequestError('unsupported content type: send application/json'))
  const tooLarge = errorResponse('null', new InvalidRequestError(`request body too large: the limit is ${limits.maxBodyBytes} bytes`))
  // Note: up to 8× the limit or 5 s of a refused body is read before the 413; past that the connection is cut.
  const discardBound: DiscardBound = { maxBytes: 8 * limits.maxBodyBytes, maxMs: Math.min(5000, limits.requestTimeoutMs) }
  const refuseTooLarge = async (req: IncomingMessage, res: ServerResponse) => {
    const ended = await discardBody(req, discardBound)
    // Note: req itself is destroyed once read to the end; the socket tells whether the client is there.
    if (!req.socket.destroyed) send(res, 413, tooLarge, true)
    if (!ended) res.once('finish', () => req.socket.destroy())
  }

  async function serve(req: IncomingMessage, res: ServerResponse, pathNetwork: string | undefined, key: string | undefined) {
    const network: ServedNetwork | { unknown: string } =
      pathNetwork === undefined ? resolver.fromHost(req.headers.host) : (resolver.lookup(pathNetwork) ?? { unknown: pathNetwork })
    if ('unknown' in network) return send(res, 404, resolver.unknownBody(network.unknown))
    // Note: browsers read answers (errors included) across origins only with this header (Infura sends it too).
    if (req.headers.origin !== undefined) res.setHeader('access-control-allow-origin', '*')
    const checked = auth.authenticate(key)
    const result = checked instanceof Promise ? await checked : checked
    if (!result.ok)
      return result.status === 503
        ? sendJson(res, 503, result.body, closing(), ['retry-after', String(result.retryAfter)])
        : send(res, result.status, result.body)
    const { access } = result.key
    if (access !== undefined) {
      const { origin, authorization } = req.headers
      if (!accessAllowed(access, { network: network.name, origin, userAgent: req.headers['user-agent'], authorization })) return send(res, 403, rejectedBody)
    }
    if (!isJsonContentType(req.headers['content-type'])) return send(res, 415, unsupportedType)
    const declared = req.headers['content-length']
    if (declared !== undefined && Number(declared) > limits.maxBodyBytes) return refuseTooLarge(req, res)
    const text = await readBody(req, limits.maxBodyBytes)
    if (text === 'tooLarge') return refuseTooLarge(req, res)
    const header = req.headers['enable-failover']
    const outcome = answer(text, result.key, network, typeof header === 'string' && failoverHeader.test(header))
    sendOutcome(res, outcome instanceof Promise ? await outcome : outcome, closing())
  }

  function fail(req: IncomingMessage, res: ServerResponse, error: unknown) {
    // Note: req itself is destroyed once its body was read; the socket says whether the client is gone.
    if (req.socket.destroyed || res.headersSent) {
      res.destroy()
      return
    }
    const correlationId = randomUUID().slice(0, 8)
    logger.error({ msg: 'request failed', correlation_id: correlationId, error: (error as Error).message })
    send(res, 500, errorResponse('null', new InternalError('internal error', { data: { correlationId } })), true)
  }

  return (req, res) => {
    if (req.method !== 'POST') {
      if (req.method !== 'OPTIONS' || !rpcPath.test(req.url ?? '')) return false
      res.writeHead(204, preflightHeaders)
      res.end()
      return true
    }
    const match = rpcPath.exec(req.url ?? '')
    if (match === null) return false
    if (overloaded()) {
      onShed?.()
      // Note: node reads and drops the unread body after the answer, and the connection stays open (a reconnect would cost more).
      sendJson(res, 503, shed, closing(), shedHeaders)
      return true
    }
    serve(req, res, match[1], match[2]).catch((error: unknown) => fail(req, res, error))
    return true
  }
}
