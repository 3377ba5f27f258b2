import { timingSafeEqual } from 'node:crypto'
import type { Request } from 'express'
import { ApiError } from '../errors.js'

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Refuses a state change that may come from another site. Every POST/PATCH/DELETE must:
 * be JSON (a cross-site form cannot send that without a CORS preflight, which we never allow);
 * not be marked cross-site by the browser (Sec-Fetch-Site) nor name another Origin; and, when
 * signed in, carry the session's token in X-CSRF-Token (the synchronizer-token pattern).
 */
export function checkCsrf(req: Request, sessionToken: string | undefined): void {
  if (safeMethods.has(req.method)) return
  const type = req.headers['content-type']
  if (req.headers['content-length'] !== '0' && req.headers['content-length'] !== undefined && !(type ?? '').toLowerCase().startsWith('application/json'))
    throw new ApiError(415, 'send JSON (Content-Type: application/json)')
  const site = req.headers['sec-fetch-site']
  if (site === 'cross-site' || site === 'same-site') throw new ApiError(403, 'cross-site request refused')
  const origin = req.headers.origin
  if (origin !== undefined && origin !== `${req.protocol}://${req.headers.host}`) throw new ApiError(403, 'cross-site request refused')
  if (sessionToken === undefined) return
  const sent = req.headers['x-csrf-token']
  if (typeof sent !== 'string' || sent.length !== sessionToken.length || !timingSafeEqual(Buffer.from(sent), Buffer.from(sessionToken)))
    throw new ApiError(403, 'CSRF token missing or wrong: reload the page')
}
