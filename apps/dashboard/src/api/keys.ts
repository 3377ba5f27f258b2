import { createHash, randomBytes } from 'node:crypto'
import { type AccountKeyRow, copyKeySettings, createApiKey, findAccountKey, keySettingsForCopy, listAccountKeys, listNetworks, revokeAccountKey, setAccountKeySecret, updateAccountKey } from '@uncle-rpc/db'
import { type Request, type Response, Router } from 'express'
import { ApiError } from '../errors.js'
import { type ApiDeps, sessionOf, signedIn } from './context.js'
import { endpointsFor } from './endpoints.js'
import { createKeyInput, keyId, parse, updateKeyInput } from './validate.js'

const time = (date: Date | null) => (date === null ? null : date.toISOString())

/** A key as the API shows it (never a hash). */
function keyView(key: AccountKeyRow) {
  return {
    id: key.id,
    name: key.name ?? '',
    prefix: key.prefix,
    createdAt: time(key.createdAt),
    lastUsedAt: time(key.lastUsedAt),
    revokedAt: time(key.revokedAt),
    networks: key.networks,
    allowedOrigins: key.allowedOrigins,
    allowedUserAgents: key.allowedUserAgents,
    requireSecret: key.requireSecret,
    rpsCap: key.rpsCap,
    dailyCap: key.dailyCap,
    planLimits: { requestsPerSecond: key.planRps, requestsPerDay: key.planDaily },
  }
}

/**
 * /api/keys: list, create, show, change settings, secret, rotate, revoke. Every query is scoped
 * to the signed-in account (accountKeys.ts), so another account's key id is simply "no such key".
 */
export function keyRoutes(deps: ApiDeps): Router {
  const { db } = deps
  const router = Router()
  router.use(signedIn(deps))
  const networkNames = async () => (await listNetworks(db)).map((n) => n.name)
  const checkNetworks = async (networks: string[] | null | undefined) => {
    if (networks == null) return
    const known = new Set(await networkNames())
    const unknown = networks.find((n) => !known.has(n))
    if (unknown !== undefined) throw new ApiError(400, `networks: no network named "${unknown}"`)
  }
  const owned = async (res: Response, id: number) => {
    const key = await findAccountKey(db, { accountId: sessionOf(res).accountId, keyId: id })
    if (key === null) throw new ApiError(404, 'no such key')
    return key
  }
  const created = async (res: Response, key: string, row: AccountKeyRow | null) => {
    if (row === null) throw new ApiError(404, 'no such key')
    const names = row.networks ?? (await networkNames())
    // Note: the only time the full key leaves the server; the endpoints carry it, ready to copy.
    res.status(201).json({ key: keyView(row), apiKey: key, endpoints: endpointsFor(deps.rpcUrl, names, key) })
  }

  router.get('/', async (_req: Request, res: Response) => {
    const keys = await listAccountKeys(db, { accountId: sessionOf(res).accountId })
    res.json({ keys: keys.map(keyView), networks: await networkNames(), rpcUrl: deps.rpcUrl })
  })

  router.post('/', async (req: Request, res: Response) => {
    const { name, networks } = parse(createKeyInput, req.body)
    await checkNetworks(networks)
    const { accountId, plan } = sessionOf(res)
    const { key, row } = await createApiKey(db, { plan, label: name, accountId, networks: networks ?? null })
    await created(res, key, await findAccountKey(db, { accountId, keyId: row.id }))
  })

  router.get('/:id', async (req: Request, res: Response) => {
    const key = await owned(res, keyId(req.params.id))
    res.json({ key: keyView(key), endpoints: endpointsFor(deps.rpcUrl, key.networks ?? (await networkNames()), '<API_KEY>') })
  })

  router.patch('/:id', async (req: Request, res: Response) => {
    const id = keyId(req.params.id)
    const patch = parse(updateKeyInput, req.body)
    const current = await owned(res, id)
    await checkNetworks(patch.networks)
    // Per-key limits only ever lower the plan's.
    if (patch.rpsCap != null && patch.rpsCap > current.planRps)
      throw new ApiError(400, `rpsCap: at most your plan's ${current.planRps} requests per second`)
    if (patch.dailyCap != null && patch.dailyCap > current.planDaily)
      throw new ApiError(400, `dailyCap: at most your plan's ${current.planDaily} requests per day`)
    const key = await updateAccountKey(db, { accountId: sessionOf(res).accountId, keyId: id, patch })
    if (key === null) throw new ApiError(409, 'the key is revoked')
    res.json({ key: keyView(key) })
  })

  // A new secret (shown once) that every request must then send: HTTP Basic, empty user, the secret as password.
  router.post('/:id/secret', async (req: Request, res: Response) => {
    const id = keyId(req.params.id)
    const secret = randomBytes(24).toString('base64url')
    const secretHash = `0x${createHash('sha256').update(secret).digest('hex')}` as const
    if (!(await setAccountKeySecret(db, { accountId: sessionOf(res).accountId, keyId: id, secretHash }))) throw new ApiError(404, 'no such key')
    res.status(201).json({ secret, authorization: `Basic ${Buffer.from(`:${secret}`).toString('base64')}` })
  })

  router.delete('/:id/secret', async (req: Request, res: Response) => {
    if (!(await setAccountKeySecret(db, { accountId: sessionOf(res).accountId, keyId: keyId(req.params.id), secretHash: null })))
      throw new ApiError(404, 'no such key')
    res.json({ ok: true })
  })

  // Rotate: a new key with the same settings, the old one revoked, in one transaction.
  router.post('/:id/rotate', async (req: Request, res: Response) => {
    const id = keyId(req.params.id)
    const { accountId } = sessionOf(res)
    const outcome = await db.transaction(async (tx) => {
      const settings = await keySettingsForCopy(tx, { accountId, keyId: id })
      if (settings === null || settings.revokedAt !== null) return null
      const { key, row } = await createApiKey(tx, { plan: settings.plan, label: settings.label ?? undefined, accountId })
      await copyKeySettings(tx, { accountId, keyId: row.id, settings })
      await revokeAccountKey(tx, { accountId, keyId: id })
      return { key, row: await findAccountKey(tx, { accountId, keyId: row.id }) }
    })
    if (outcome === null) throw new ApiError(404, 'no such key')
    await created(res, outcome.key, outcome.row)
  })

  router.post('/:id/revoke', async (req: Request, res: Response) => {
    if (!(await revokeAccountKey(db, { accountId: sessionOf(res).accountId, keyId: keyId(req.params.id) }))) throw new ApiError(404, 'no such key')
    res.json({ ok: true })
  })

  return router
}
