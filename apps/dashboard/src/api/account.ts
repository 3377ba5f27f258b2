import { findAccountByEmail, insertAccount } from '@uncle-rpc/db'
import { type Request, type Response, Router } from 'express'
import { checkCsrf } from '../auth/csrf.js'
import { burnVerification, hashPassword, verifyPassword } from '../auth/password.js'
import { ApiError } from '../errors.js'
import { type ApiDeps, sessionOf, signedIn } from './context.js'
import { parse, signInInput, signUpInput } from './validate.js'

const accountView = (s: { email: string; plan: string }) => ({ email: s.email, plan: s.plan })

/** POST /api/signup, /api/signin, /api/signout; GET /api/session. */
export function accountRoutes(deps: ApiDeps): Router {
  const { db, sessions, throttle, logger } = deps
  const router = Router()

  router.post('/signup', async (req: Request, res: Response) => {
    checkCsrf(req, undefined)
    if (deps.signup !== 'open') throw new ApiError(403, 'sign-up is by invitation: ask the operator for an account')
    const { email, password } = parse(signUpInput, req.body)
    const account = await insertAccount(db, { email, passwordHash: await hashPassword(password) })
    if (account === null) throw new ApiError(409, 'an account with this email exists: sign in instead')
    logger.info({ msg: 'account created', account_id: account.id })
    const { csrfToken } = await sessions.start(req, res, account.id)
    res.status(201).json({ account: accountView(account), csrfToken })
  })

  router.post('/signin', async (req: Request, res: Response) => {
    checkCsrf(req, undefined)
    const { email, password } = parse(signInInput, req.body)
    const address = req.ip ?? 'unknown'
    const wait = await throttle.retryAfter(email, address)
    if (wait > 0) throw new ApiError(429, `too many failed sign-ins: try again in ${wait} s`, { retryAfter: wait })
    const account = await findAccountByEmail(db, { email })
    const ok = account?.passwordHash ? await verifyPassword(password, account.passwordHash) : (await burnVerification(password), false)
    if (account === null || !ok || account.disabledAt !== null) {
      await throttle.failed(email, address)
      logger.info({ msg: 'sign-in failed', address })
      throw new ApiError(401, 'wrong email or password')
    }
    await throttle.succeeded(email)
    const { csrfToken } = await sessions.start(req, res, account.id)
    res.json({ account: accountView(account), csrfToken })
  })

  router.post('/signout', signedIn(deps), async (req: Request, res: Response) => {
    await sessions.end(req, res)
    res.json({ ok: true })
  })

  router.get('/session', signedIn(deps), (_req: Request, res: Response) => {
    const session = sessionOf(res)
    res.json({ account: accountView(session), csrfToken: session.csrfToken })
  })

  return router
}
