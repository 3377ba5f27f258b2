import { randomBytes } from 'node:crypto'
import type { Db } from '@uncle-rpc/db'
import { deleteAccountSessions, deleteSession, findSession, hashSecret, insertSession, type SessionRow } from '@uncle-rpc/db/accounts'
import type { Request, Response } from 'express'

/** The session cookie's name. */
const sessionCookie = 'uncle_session'
/** A session ends 7 days after sign-in at the latest… */
const sessionMs = 7 * 24 * 3_600_000
/** …and after 12 hours without a request. */
export const defaultIdleMs = 12 * 3_600_000

/** Whether cookies get `Secure`: always, never, or when the request came over https (`auto`, behind a proxy on loopback too). */
export type SecureCookies = 'auto' | 'always' | 'never'

/** Server-side sessions in Postgres: the cookie holds 32 random bytes, the table only their sha256. */
export type Sessions = {
  /** Starts a session for the account and sets the cookie, ending the session this browser had (rotation); its CSRF token. */
  start(req: Request, res: Response, accountId: number): Promise<{ csrfToken: string }>
  /** The live session of the request's cookie, or null. */
  read(req: Request): Promise<SessionRow | null>
  /** Ends the request's session (if any) and clears the cookie. */
  end(req: Request, res: Response): Promise<void>
  /** Ends every session of the account and clears this browser's cookie ("sign out everywhere"). */
  endAll(req: Request, res: Response, accountId: number): Promise<void>
}

/** The value of one cookie in a Cookie header, or undefined. */
function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** Session cookies: HttpOnly (scripts cannot read them), SameSite=Strict (not sent on cross-site requests), Secure per `secure`. */
export function createSessions({ db }: { db: Db }, { secure, idleMs = defaultIdleMs }: { secure: SecureCookies; idleMs?: number | undefined }): Sessions {
  const cookie = (req: Request, value: string, maxAgeSeconds: number) => {
    const flags = [`${sessionCookie}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`]
    if (secure === 'always' || (secure === 'auto' && req.secure)) flags.push('Secure')
    return flags.join('; ')
  }
  const tokenOf = (req: Request) => {
    const token = readCookie(req.headers.cookie, sessionCookie)
    return token !== undefined && /^[A-Za-z0-9_-]{43}$/.test(token) ? token : undefined
  }
  return {
    async start(req, res, accountId) {
      // Note: a fresh token at every sign-in, and the one the browser held is dropped, so a token planted before sign-in is worthless.
      const previous = tokenOf(req)
      if (previous !== undefined) await deleteSession(db, { tokenHash: hashSecret(previous) })
      const token = randomBytes(32).toString('base64url')
      const csrfToken = randomBytes(32).toString('base64url')
      await insertSession(db, { tokenHash: hashSecret(token), accountId, csrfToken, expiresAt: new Date(Date.now() + sessionMs) })
      res.append('set-cookie', cookie(req, token, sessionMs / 1000))
      return { csrfToken }
    },
    async read(req) {
      const token = tokenOf(req)
      return token === undefined ? null : findSession(db, { tokenHash: hashSecret(token), idleMs })
    },
    async end(req, res) {
      const token = tokenOf(req)
      if (token !== undefined) await deleteSession(db, { tokenHash: hashSecret(token) })
      res.append('set-cookie', cookie(req, '', 0))
    },
    async endAll(req, res, accountId) {
      await deleteAccountSessions(db, { accountId })
      res.append('set-cookie', cookie(req, '', 0))
    },
  }
}
