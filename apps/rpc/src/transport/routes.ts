// Every path the RPC answers, in one place: http.ts, ws.ts and readiness/app.ts take their routes from here.

/** `POST /v3/<key>` or `POST /<network>/v3/<key>` (an optional trailing slash and query are ignored); groups: network, key. */
export const rpcPath = /^\/(?:([^/?]+)\/)?v3(?:\/([^/?]*))?\/?(?:\?.*)?$/

const absoluteForm = /^https?:\/\/([^/?#]*)([^#]*)$/i

/**
 * A request target as origin-form: an absolute-form target (`POST http://host/v3/KEY HTTP/1.1`,
 * valid HTTP/1.1, RFC 9112 §3.2.2) as its path (`/` when empty) and its authority, which stands
 * for the Host header (§3.2.2: the Host header is then ignored); any other target as it is.
 */
export function originForm(target: string): { path: string; authority?: string } {
  const absolute = absoluteForm.exec(target)
  if (absolute === null) return { path: target }
  const path = absolute[2] as string
  return { path: path === '' || path.startsWith('?') ? `/${path}` : path, authority: absolute[1] as string }
}

/** WebSocket upgrades at `/ws/v3/<key>` or `/<network>/ws/v3/<key>`; groups: network, key. */
export const wsPath = /^\/(?:([^/?]+)\/)?ws\/v3(?:\/([^/?]*))?\/?(?:\?.*)?$/

/** The JSON-RPC paths in Express's syntax, for their answers to other HTTP methods (405). */
export const rpcExpressPaths = ['/v3', '/v3/{*rest}', '/:network/v3', '/:network/v3/{*rest}']

/** Liveness (the process is up) and readiness (database reachable, a network indexed). */
export const healthPath = '/health'
export const readyPath = '/ready'

/** What a client is told on an unknown path. */
export const notFoundText = 'not found: send JSON-RPC as POST /v3/<API_KEY> (or /<network>/v3/<API_KEY>); WebSocket at /ws/v3/<API_KEY>'
export const wsNotFoundText = 'not found: WebSocket endpoints are /ws/v3/<API_KEY>'
