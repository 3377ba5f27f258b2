import { errorResponse, InvalidRequestError } from '@uncle-rpc/jsonrpc'
import { isJsonContentType } from '@uncle-rpc/wire'
import type { Auth, AuthResult, KeyRecord } from '../access/auth.js'
import { type AccessHeaders, accessRefusal, rejectedBody } from '@uncle-rpc/accounts'
import type { RefusalCounter } from '../access/usage.js'
import type { ServedNetwork } from '../methods/context.js'
import type { NetworkResolver } from './network.js'
import { shedBody, shedRetryAfterSeconds } from '../protection/overload.js'

// The checks of a request before it is answered, in one place: the network, the key and the key's
// restrictions for every transport (HTTP POSTs, WebSocket upgrades and messages), and around them
// for both HTTP paths (node:http in http.ts, the fast path in fastRpc.ts) overload and content type.
// The body's size and reading stay with each path; what a refusal looks like on a WebSocket, with ws.ts.

/** What the checks read of a request: the path's network and key, and five headers. */
export type PostFields = {
  pathNetwork: string | undefined
  key: string | undefined
  host: string | undefined
  origin: string | undefined
  userAgent: string | undefined
  authorization: string | undefined
  contentType: string | undefined
}

/** A request refused by its network or key, whatever the transport: status, JSON-RPC error body, Retry-After seconds (503). */
export type KeyRefusal = Readonly<{ ok: false; status: number; body: string; retryAfter?: number | undefined }>

/** A key that passed: the authentication's own result (nothing is made per request). */
export type KeyPassed = AuthResult & { ok: true }

const restricted: KeyRefusal = Object.freeze({ ok: false, status: 403, body: rejectedBody })

/** The network a request names (its path's, else its Host's), or the 404 naming the unknown one. */
export function requestNetwork(resolver: NetworkResolver, pathNetwork: string | undefined, host: string | undefined): ServedNetwork | KeyRefusal {
  const network = pathNetwork === undefined ? resolver.fromHost(host) : resolver.fromPath(pathNetwork)
  return 'unknown' in network ? { ok: false, status: 404, body: network.body } : network
}

/**
 * The key's verdict on a request for `network`, once authenticated: the result itself when it
 * passes; else 401 (missing, unknown or revoked), 503 + Retry-After (cannot be checked now) or 403
 * -32002 (a restriction). A known key refused as revoked or by a restriction is counted in usage.
 */
export function keyVerdict(result: AuthResult, network: ServedNetwork, headers: AccessHeaders, usage: RefusalCounter): KeyPassed | KeyRefusal {
  if (!result.ok) {
    if (result.status === 401 && result.revoked !== undefined) usage.refuse(result.revoked.id, network.name, 'revoked')
    return result
  }
  const { access } = result.key
  if (access === undefined) return result
  const refused = accessRefusal(access, network.name, headers)
  if (refused === undefined) return result
  usage.refuse(result.key.id, network.name, refused)
  return restricted
}

/** A request refused before its body is read: status, JSON-RPC error body, extra headers (name, value pairs). */
export type Refusal = { ok: false; status: number; body: string | Uint8Array; headers: readonly string[] }
export type Admitted = { ok: true; key: KeyRecord; network: ServedNetwork; headers: readonly string[] }

/** What the network and key checks need, on every transport. */
export type KeyCheckDeps = {
  resolver: NetworkResolver
  auth: Auth
  /** Told about each request of a known key refused with 401 (revoked) or 403 (a restriction): usage. */
  usage: RefusalCounter
}

export type AdmissionDeps = KeyCheckDeps & {
  /** True while the process is too far behind to take new requests (overload.ts). */
  overloaded?: (() => boolean) | undefined
  /** Told about each request shed (metrics). */
  onShed?: (() => void) | undefined
}

// Note: browsers read answers (errors included) across origins only with this header (Infura sends it too).
const cors = ['access-control-allow-origin', '*'] as const
const none: readonly string[] = []

/**
 * The checks in order: overload (503 -32005 with Retry-After), network (404), key (401; 503 +
 * Retry-After when it cannot be checked now), the key's restrictions (403 -32002), Content-Type
 * (415). Every answer after the network check carries the CORS header when the request had an Origin.
 * A 401 of a revoked key and a 403 are counted in usage on the key, by reason (usage.ts).
 * A value when nothing had to wait (a key in memory).
 */
export function createAdmission({ resolver, auth, usage, overloaded = () => false, onShed }: AdmissionDeps) {
  const shed: Refusal = { ok: false, status: 503, body: Buffer.from(shedBody()), headers: ['retry-after', String(shedRetryAfterSeconds)] }
  const unsupportedType = errorResponse('null', new InvalidRequestError('unsupported content type: send application/json'))

  function checked(fields: PostFields, network: ServedNetwork, result: AuthResult): Admitted | Refusal {
    const headers = fields.origin === undefined ? none : cors
    const verdict = keyVerdict(result, network, fields, usage)
    if (!verdict.ok) {
      const { status, body, retryAfter } = verdict
      return { ok: false, status, body, headers: retryAfter === undefined ? headers : [...headers, 'retry-after', String(retryAfter)] }
    }
    if (!isJsonContentType(fields.contentType)) return { ok: false, status: 415, body: unsupportedType, headers }
    return { ok: true, key: verdict.key, network, headers }
  }

  return (fields: PostFields): Admitted | Refusal | Promise<Admitted | Refusal> => {
    if (overloaded()) {
      onShed?.()
      return shed
    }
    const network = requestNetwork(resolver, fields.pathNetwork, fields.host)
    if ('status' in network) return { ok: false, status: 404, body: network.body, headers: none }
    const result = auth.authenticate(fields.key)
    // Note: a key held in memory is checked without a promise: the fast path's sync answer avoids a microtask.
    return result instanceof Promise ? result.then((r) => checked(fields, network, r)) : checked(fields, network, result)
  }
}

export type Admission = ReturnType<typeof createAdmission>

/** `Enable-Failover: true` (any case, surrounding spaces). */
export function failoverRequested(header: string | string[] | undefined): boolean {
  return typeof header === 'string' && /^\s*true\s*$/i.test(header)
}
