import type { Logger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import type { SessionRow } from '@uncle-rpc/db/accounts'
import type { NextFunction, Request, Response } from 'express'
import { checkCsrf } from '../auth/csrf.js'
import type { EmailLinks } from '../auth/emailLinks.js'
import type { RequestLimits } from '../auth/limits.js'
import type { Sessions } from '../auth/sessions.js'
import type { SignInThrottle } from '../auth/throttle.js'
import { ApiError } from '../errors.js'

/** Who may create an account: anyone (`open`) or only the operator with `uncle-rpc accounts create` (`invite`). */
export type SignupMode = 'open' | 'invite'

/** What every API handler may use. */
export type ApiDeps = {
  db: Db
  logger: Logger
  sessions: Sessions
  throttle: SignInThrottle
  limits: RequestLimits
  links: EmailLinks
  signup: SignupMode
  /** Public base URL of the RPC service, for the endpoints shown (`http://127.0.0.1:8545`). */
  rpcUrl: string
  /** The networks the RPC service serves (its networks config), in its order. */
  networks: readonly string[]
  /** Each network's own address from the config (`publicUrl`), used instead of `rpcUrl` for its endpoints. */
  networkUrls: ReadonlyMap<string, string>
  /** Most live keys per account. */
  maxKeys: number
}

/** An account as the API shows it. */
export const accountView = (a: { email: string; plan: string; emailVerified: boolean }) => ({ email: a.email, plan: a.plan, emailVerified: a.emailVerified })

/** The client's address: the socket's, or X-Forwarded-For's when the proxy is trusted (--trust-proxy). */
export const clientAddress = (req: Request): string => req.ip ?? 'unknown'

/** The signed-in session a handler runs for (set by `signedIn`). */
export function sessionOf(res: Response): SessionRow {
  return res.locals.session as SessionRow
}

/** Middleware: 401 without a live session; CSRF checks on every state change (csrf.ts). */
export function signedIn(deps: ApiDeps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const session = await deps.sessions.read(req)
    if (session === null) throw new ApiError(401, 'sign in first')
    checkCsrf(req, session.csrfToken)
    res.locals.session = session
    next()
  }
}
