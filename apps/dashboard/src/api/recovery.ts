import { hashPassword } from '@uncle-rpc/accounts'
import { boundedTransaction } from '@uncle-rpc/db'
import { deleteAccountTokens, findAccountByEmail, findAccountById, hashSecret, markEmailVerified, setAccountPassword, takeAccountToken } from '@uncle-rpc/db/accounts'
import { type Request, type Response, Router } from 'express'
import { checkCsrf } from '../auth/csrf.js'
import { ApiError } from '../errors.js'
import { resetEmail, verifyEmail } from '../mail/messages.js'
import { checkPasswordRule } from './account.js'
import { type ApiDeps, accountView, clientAddress, sessionOf, signedIn } from './context.js'
import { emailInput, parse, resetInput, tokenInput } from './validate.js'

const usedLink = 'this link has expired or was already used'

/**
 * Email verification and password reset: POST /api/verify, /api/verify/send, /api/password/forgot,
 * /api/password/reset. Opening a link signs the browser in; a reset link is the way past a
 * sign-in lock (it clears the email's failed sign-ins).
 */
export function recoveryRoutes(deps: ApiDeps): Router {
  const { db, sessions, throttle, limits, links, logger } = deps
  const router = Router()

  router.post('/verify', async (req: Request, res: Response) => {
    checkCsrf(req, undefined)
    const { token } = parse(tokenInput, req.body)
    const accountId = await takeAccountToken(db, { tokenHash: hashSecret(token), purpose: 'verify' })
    const account = accountId === null ? null : await findAccountById(db, { accountId })
    if (account === null) throw new ApiError(400, `${usedLink}: sign in and send a new one`)
    if (account.disabledAt !== null) throw new ApiError(403, 'this account is disabled')
    await markEmailVerified(db, { accountId: account.id })
    logger.info({ msg: 'email verified', account_id: account.id })
    const { csrfToken } = await sessions.start(req, res, account.id)
    res.json({ account: accountView({ ...account, emailVerified: true }), csrfToken })
  })

  router.post('/verify/send', signedIn(deps), async (_req: Request, res: Response) => {
    const session = sessionOf(res)
    if (session.emailVerified) throw new ApiError(409, 'your email is verified already')
    await limits.check('verifyEmail', session.accountId)
    await links.send(session.accountId, 'verify', (link) => verifyEmail(session.email, link))
    res.status(202).json({ ok: true, message: `We sent a new link to ${session.email}` })
  })

  // The same answer whether or not the email has an account; the email goes out in the background.
  router.post('/password/forgot', async (req: Request, res: Response) => {
    checkCsrf(req, undefined)
    const { email } = parse(emailInput, req.body)
    await limits.check('reset', clientAddress(req))
    await limits.check('resetEmail', email)
    const account = await findAccountByEmail(db, { email })
    if (account !== null && account.disabledAt === null && account.passwordHash !== null)
      await links.send(account.id, 'reset', (link) => resetEmail(account.email, link))
    res.status(202).json({ ok: true, message: `If ${email} has an account, we sent it a link to reset the password` })
  })

  router.post('/password/reset', async (req: Request, res: Response) => {
    checkCsrf(req, undefined)
    const { token, password } = parse(resetInput, req.body)
    // Note: one transaction, so a password the rule refuses leaves the link usable.
    const account = await boundedTransaction(db, async (tx) => {
      const accountId = await takeAccountToken(tx, { tokenHash: hashSecret(token), purpose: 'reset' })
      const found = accountId === null ? null : await findAccountById(tx, { accountId })
      if (found === null) throw new ApiError(400, `${usedLink}: ask for a new one`)
      if (found.disabledAt !== null) throw new ApiError(403, 'this account is disabled')
      checkPasswordRule('password', password, found.email)
      await setAccountPassword(tx, { accountId: found.id, passwordHash: await hashPassword(password) })
      await deleteAccountTokens(tx, { accountId: found.id, purpose: 'reset' })
      await markEmailVerified(tx, { accountId: found.id })
      return found
    })
    await throttle.succeeded(account.email)
    logger.info({ msg: 'password reset', account_id: account.id })
    const { csrfToken } = await sessions.start(req, res, account.id)
    res.json({ account: accountView({ ...account, emailVerified: true }), csrfToken })
  })

  return router
}
