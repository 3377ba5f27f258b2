import { insertUpgradeRequest, listPlans, listUpgradeRequests } from '@uncle-rpc/db/accounts'
import { type Request, type Response, Router } from 'express'
import { type ApiDeps, sessionOf, signedIn } from './context.js'
import { parse, upgradeInput } from './validate.js'

const planView = (p: { name: string; requestsPerSecond: number; requestsPerDay: number; maxBatchSize: number; failoverAllowed: boolean }) => ({
  name: p.name,
  requestsPerSecond: p.requestsPerSecond,
  requestsPerDay: p.requestsPerDay,
  maxBatchSize: p.maxBatchSize,
  failoverAllowed: p.failoverAllowed,
})
const requestView = (r: { id: number; plan: string; message: string | null; createdAt: Date; grantedAt: Date | null }) => ({
  id: r.id,
  plan: r.plan,
  message: r.message,
  createdAt: r.createdAt.toISOString(),
  grantedAt: r.grantedAt?.toISOString() ?? null,
})

/** GET /api/plan (the account's plan, every plan's limits, its upgrade requests); POST /api/plan/requests. */
export function planRoutes(deps: ApiDeps): Router {
  const { db } = deps
  const router = Router()
  router.use(signedIn(deps))
  router.get('/', async (_req: Request, res: Response) => {
    const { accountId, plan } = sessionOf(res)
    const [plans, requests] = await Promise.all([listPlans(db), listUpgradeRequests(db, { accountId })])
    res.json({ plan, plans: plans.map(planView), requests: requests.map(requestView) })
  })
  router.post('/requests', async (req: Request, res: Response) => {
    const { plan, message } = parse(upgradeInput, req.body)
    await deps.limits.check('upgrade', sessionOf(res).accountId)
    const row = await insertUpgradeRequest(db, { accountId: sessionOf(res).accountId, plan, message })
    res.status(201).json({ request: requestView(row) })
  })
  return router
}
