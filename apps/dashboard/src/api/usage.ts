import { accountUsage } from '@uncle-rpc/accounts'
import { type Request, type Response, Router } from 'express'
import { type ApiDeps, sessionOf, signedIn } from './context.js'
import { parse, usageQuery } from './validate.js'

/**
 * GET /api/usage?key=<id>&network=<name>: requests, errors, rate-limited and forwarded calls, and
 * requests refused before an answer by reason (refusedRevoked: 401; refusedNetwork, refusedOrigin,
 * refusedUserAgent, refusedSecret: 403) per UTC day (30 days) and per hour (24 hours) for the
 * account, or one of its keys and/or networks; and `methods`: calls and rate-limited calls per
 * JSON-RPC method over the 30 days, most called first (method "(other)": calls naming no method
 * served; method null: calls counted before usage was kept per method, shown without a network filter).
 * The report is packages/accounts' (accountUsage); a key id of another account matches no rows.
 */
export function usageRoutes(deps: ApiDeps): Router {
  const router = Router()
  router.use(signedIn(deps))
  router.get('/', async (req: Request, res: Response) => {
    const { key, network } = parse(usageQuery, req.query)
    res.json(await accountUsage(deps, { accountId: sessionOf(res).accountId, keyId: key, network }))
  })
  return router
}
