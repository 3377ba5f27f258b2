import type { Logger } from '@uncle-rpc/config'
import type { Db, SessionRow } from '@uncle-rpc/db'
import type { NextFunction, Request, Response } from 'express'
import { checkCsrf } from '../auth/csrf.js'
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
  signup: SignupMode
  /** Public base URL of the RPC service, for the endpoints shown (`http://127.0.0.1:8545`). */
  rpcUrl: string
}

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
