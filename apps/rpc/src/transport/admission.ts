import { errorResponse, InvalidRequestError } from '@uncle-rpc/jsonrpc'
import type { Auth, AuthResult, KeyRecord } from '../access/auth.js'
import { accessRefusal, rejectedBody } from '../access/keyAccess.js'
import type { RefusalCounter } from '../access/usage.js'
import { isJsonContentType } from './httpBody.js'
import type { NetworkResolver, ServedNetwork } from './network.js'
import { shedBody, shedRetryAfterSeconds } from './overload.js'

// The checks of a JSON-RPC POST before its body is answered, in one place for both HTTP paths
// (node:http in http.ts, the fast path in fastHttp/): overload, network, key, the key's
// restrictions, content type. The body's size and reading stay with each path.

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

/** A request refused before its body is read: status, JSON-RPC error body, extra headers (name, value pairs). */
export type Refusal = { ok: false; status: number; body: string | Uint8Array; headers: readonly string[] }
export type Admitted = { ok: true; key: KeyRecord; network: ServedNetwork; headers: readonly string[] }

export type AdmissionDeps = {
  resolver: NetworkResolver
  auth: Auth
  /** Told about each request of a known key refused with 401 (revoked) or 403 (a restriction): usage. */
  usage: RefusalCounter
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
    if (!result.ok) {
      if (result.status === 503) return { ok: false, status: 503, body: result.body, headers: [...headers, 'retry-after', String(result.retryAfter)] }
      if (result.revoked !== undefined) usage.refuse(result.revoked.id, network.name, 'revoked')
      return { ok: false, status: result.status, body: result.body, headers }
    }
    const { access } = result.key
    if (access !== undefined) {
      const refused = accessRefusal(access, { network: network.name, origin: fields.origin, userAgent: fields.userAgent, authorization: fields.authorization })
      if (refused !== undefined) {
        usage.refuse(result.key.id, network.name, refused)
        return { ok: false, status: 403, body: rejectedBody, headers }
      }
    }
    if (!isJsonContentType(fields.contentType)) return { ok: false, status: 415, body: unsupportedType, headers }
    return { ok: true, key: result.key, network, headers }
  }

  return (fields: PostFields): Admitted | Refusal | Promise<Admitted | Refusal> => {
    if (overloaded()) {
      onShed?.()
      return shed
    }
    const network: ServedNetwork | { unknown: string } =
      fields.pathNetwork === undefined ? resolver.fromHost(fields.host) : (resolver.lookup(fields.pathNetwork) ?? { unknown: fields.pathNetwork })
    if ('unknown' in network) return { ok: false, status: 404, body: resolver.unknownBody(network.unknown), headers: none }
    const result = auth.authenticate(fields.key)
    return result instanceof Promise ? result.then((r) => checked(fields, network, r)) : checked(fields, network, result)
  }
}

export type Admission = ReturnType<typeof createAdmission>

/** `Enable-Failover: true` (any case, surrounding spaces). */
export function failoverRequested(header: string | string[] | undefined): boolean {
  return typeof header === 'string' && /^\s*true\s*$/i.test(header)
}
