import { burnVerification, hashPassword, passwordProblem, verifyPassword } from '@uncle-rpc/accounts'
import { findAccountByEmail, insertAccount, setAccountPassword } from '@uncle-rpc/db/accounts'
import { type Request, type Response, Router } from 'express'
import { checkCsrf } from '../auth/csrf.js'
import { ApiError } from '../errors.js'
import { alreadyRegisteredEmail, verifyEmail } from '../mail/messages.js'
import { type ApiDeps, accountView, clientAddress, sessionOf, signedIn } from './context.js'
import { parse, passwordChangeInput, signInInput, signUpInput } from './validate.js'

/** 400 naming `field` when the password rule refuses `password` for `email`. */
export function checkPasswordRule(field: string, password: string, email: string): void {
  const problem = passwordProblem(password, email)
  if (problem !== null) throw new ApiError(400, `${field}: ${problem}`)
}

/** POST /api/signup, /api/signin, /api/signout, /api/signout/everywhere, /api/password; GET /api/session. */
export function accountRoutes(deps: ApiDeps): Router {
  const { db, sessions, throttle, limits, links, logger } = deps
  const router = Router()

  // Sign-up answers the same whether or not the email has an account (202, "check your email"):
  // a new account gets a verification link, an existing one a note with a reset link.
  router.post('/signup', async (req: Request, res: Response) => {
    checkCsrf(req, undefined)
    if (deps.signup !== 'open') throw new ApiError(403, 'sign-up is by invitation: ask the operator for an account')
    const { email, password } = parse(signUpInput, req.body)
    checkPasswordRule('password', password, email)
    await limits.check('signup', clientAddress(req))
    const account = await insertAccount(db, { email, passwordHash: await hashPassword(password) })
    if (account !== null) {
      logger.info({ msg: 'account created', account_id: account.id })
      await links.send(account.id, 'verify', (link) => verifyEmail(account.email, link))
    } else {
      const existing = await findAccountByEmail(db, { email })
      if (existing !== null && existing.disabledAt === null && existing.passwordHash !== null)
        await links.send(existing.id, 'reset', (link) => alreadyRegisteredEmail(existing.email, link))
    }
    res.status(202).json({ ok: true, message: `We sent a link to ${email}` })
  })

  router.post('/signin', async (req: Request, res: Response) => {
    checkCsrf(req, undefined)
    const { email, password } = parse(signInInput, req.body)
    const address = clientAddress(req)
    await limits.check('signin', address)
    const wait = await throttle.retryAfter(email, address)
    if (wait > 0) throw new ApiError(429, `too many failed sign-ins: try again in ${wait} s, or reset your password by email`, { retryAfter: wait })
    const account = await findAccountByEmail(db, { email })
    const ok = account?.passwordHash ? await verifyPassword(password, account.passwordHash) : (await burnVerification(password), false)
    if (account === null || !ok || account.disabledAt !== null) {
      await throttle.failed(email, address)
      logger.info({ msg: 'sign-in failed', address })
      throw new ApiError(401, 'wrong email or password')
    }
    await throttle.succeeded(email)
    const { csrfToken } = await sessions.start(req, res, account.id)
    res.json({ account: accountView({ ...account, emailVerified: account.emailVerifiedAt !== null }), csrfToken })
  })

  router.post('/signout', signedIn(deps), async (req: Request, res: Response) => {
    await sessions.end(req, res)
    res.json({ ok: true })
  })

  router.post('/signout/everywhere', signedIn(deps), async (req: Request, res: Response) => {
    await sessions.endAll(req, res, sessionOf(res).accountId)
    res.json({ ok: true })
  })

  // Note: signed out is an answer here, not an error (200 with a null account): the page asks on every
  // load, and a 401 would be a console error for every visitor who has not signed in.
  router.get('/session', async (req: Request, res: Response) => {
    const session = await sessions.read(req)
    res.json(session === null ? { account: null, csrfToken: null } : { account: accountView(session), csrfToken: session.csrfToken })
  })

  // Password change: the current password is checked (wrong ones count as failed sign-ins); every
  // session of the account ends and this browser gets a new one.
  router.post('/password', signedIn(deps), async (req: Request, res: Response) => {
    const { currentPassword, newPassword } = parse(passwordChangeInput, req.body)
    const session = sessionOf(res)
    const address = clientAddress(req)
    const wait = await throttle.retryAfter(session.email, address)
    if (wait > 0) throw new ApiError(429, `too many wrong passwords: try again in ${wait} s`, { retryAfter: wait })
    const account = await findAccountByEmail(db, { email: session.email })
    if (account?.passwordHash == null || !(await verifyPassword(currentPassword, account.passwordHash))) {
      await throttle.failed(session.email, address)
      throw new ApiError(400, 'currentPassword: wrong password')
    }
    checkPasswordRule('newPassword', newPassword, account.email)
    await setAccountPassword(db, { accountId: account.id, passwordHash: await hashPassword(newPassword) })
    logger.info({ msg: 'password changed', account_id: account.id })
    const { csrfToken } = await sessions.start(req, res, account.id)
    res.json({ account: accountView(session), csrfToken })
  })

  return router
}
