// The JSON API client: every state change carries the session's CSRF token.

let csrfToken = ''

/** Remembers the CSRF token given at sign-in or by GET /api/session. */
export function setCsrf(token) {
  csrfToken = token ?? ''
}

/** An API error with the server's message and HTTP status. */
export class ApiFailure extends Error {
  constructor(status, message) {
    super(message)
    this.status = status
  }
}

/**
 * Calls /api/<path>; resolves with the JSON body or throws ApiFailure.
 * @param {string} path @param {{method?: string, body?: unknown}} [options]
 */
export async function api(path, { method = 'GET', body } = {}) {
  const headers = { accept: 'application/json' }
  if (method !== 'GET') {
    headers['content-type'] = 'application/json'
    headers['x-csrf-token'] = csrfToken
  }
  const res = await fetch(`/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' })
  const data = await res.json().catch(() => ({}))
  if (!res.ok) throw new ApiFailure(res.status, data.error ?? `request failed (${res.status})`)
  return data
}
