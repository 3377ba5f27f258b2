import type { IncomingMessage } from 'node:http'
import type { AccessHeaders } from '@uncle-rpc/accounts'
import type { Hex } from '@uncle-rpc/chain'
import type { Logger } from '@uncle-rpc/config'
import { errorResponse, InternalError, LimitExceededError, NotFoundError } from '@uncle-rpc/jsonrpc'
import type { VerifyClientCallbackAsync } from 'ws'
import { type KeyCheckDeps, keyVerdict, requestNetwork } from '../admission/admission.js'
import type { ServedNetwork } from '../methods/context.js'
import type { RpcLimits } from './limits.js'
import { wsNotFoundText, wsPath } from './routes.js'

/** What an accepted upgrade carries to its connection: the network, the key and the headers its restrictions are checked against. */
export type WsAccepted = { network: ServedNetwork; keyHash: Hex; key: string; headers: AccessHeaders }

type Refusal = { status: number; body: string; retryAfter?: number | undefined }

export type WsUpgradeDeps = KeyCheckDeps & { limits: RpcLimits; logger: Logger }

const jsonHeaders = { 'Content-Type': 'application/json' }

/**
 * ws's verifyClient: the upgrade's path, network, key and the key's restrictions, checked by the
 * same step as HTTP's (admission.ts), and the key's connection count against
 * maxWsConnectionsPerKey. A refusal gets its HTTP status before the handshake (a key that cannot
 * be checked now: 503 with Retry-After); an accepted upgrade is put in `accepted` for its connection.
 */
export function createVerifyClient(
  deps: WsUpgradeDeps,
  state: { connections: ReadonlyMap<Hex, number>; accepted: WeakMap<IncomingMessage, WsAccepted> },
): VerifyClientCallbackAsync {
  const { resolver, auth, usage, limits, logger } = deps
  const { connections, accepted } = state
  const notFound: Refusal = { status: 404, body: errorResponse('null', new NotFoundError(wsNotFoundText)) }
  const tooMany: Refusal = {
    status: 429,
    body: errorResponse('null', new LimitExceededError(`too many WebSocket connections for this key (limit ${limits.maxWsConnectionsPerKey})`)),
  }

  async function verify(req: IncomingMessage): Promise<Refusal | WsAccepted> {
    const match = wsPath.exec(req.url ?? '')
    if (match === null) return notFound
    const network = requestNetwork(resolver, match[1], req.headers.host)
    if ('status' in network) return network
    const { origin, authorization } = req.headers
    const headers: AccessHeaders = { origin, userAgent: req.headers['user-agent'], authorization }
    const verdict = keyVerdict(await auth.authenticate(match[2]), network, headers, usage)
    if (!verdict.ok) return verdict
    if ((connections.get(verdict.key.keyHash) ?? 0) >= limits.maxWsConnectionsPerKey) return tooMany
    return { network, keyHash: verdict.key.keyHash, key: match[2]!, headers }
  }

  return ({ req }, done) => {
    verify(req).then(
      (outcome) => {
        if ('status' in outcome)
          return done(false, outcome.status, outcome.body, outcome.retryAfter === undefined ? jsonHeaders : { ...jsonHeaders, 'Retry-After': String(outcome.retryAfter) })
        accepted.set(req, outcome)
        done(true)
      },
      (error: unknown) => {
        logger.error({ msg: 'WebSocket upgrade check failed', error: (error as Error).message })
        done(false, 503, errorResponse('null', new InternalError()), jsonHeaders)
      },
    )
  }
}
