import { newKeySecret } from '@uncle-rpc/accounts'
import { boundedTransaction } from '@uncle-rpc/db'
import {
  type AccountKeyRow,
  copyKeySettings,
  countLiveAccountKeys,
  createApiKey,
  findAccountKey,
  keySettingsForCopy,
  listAccountKeys,
  lockAccount,
  revokeAccountKey,
  setAccountKeySecret,
  updateAccountKey,
} from '@uncle-rpc/db/accounts'
import { type Request, type Response, Router } from 'express'
import { ApiError } from '../errors.js'
import { type ApiDeps, sessionOf, signedIn } from './context.js'
import { endpointsFor } from './endpoints.js'
import { createKeyInput, keyId, keysPageQuery, parse, rotateInput, updateKeyInput } from './validate.js'

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
  // Note: the networks of the RPC's config, not those indexed so far: a fresh deployment shows its endpoints too.
  const networkNames = () => [...deps.networks]
  const checkNetworks = (networks: string[] | null | undefined) => {
    if (networks == null) return
    const known = new Set(deps.networks)
    const unknown = networks.find((n) => !known.has(n))
    if (unknown !== undefined) throw new ApiError(400, `networks: no network named "${unknown}"`)
  }
  const owned = async (res: Response, id: number) => {
    const key = await findAccountKey(db, { accountId: sessionOf(res).accountId, keyId: id })
    if (key === null) throw new ApiError(404, 'no such key')
    return key
  }
  const created = (res: Response, key: string, row: AccountKeyRow | null, secret?: { secret: string; authorization: string }) => {
    if (row === null) throw new ApiError(404, 'no such key')
    const names = row.networks ?? networkNames()
    // Note: the only time the full key leaves the server; the endpoints carry it, ready to copy.
    res.status(201).json({ key: keyView(row), apiKey: key, endpoints: endpointsFor(deps.rpcUrl, names, key, deps.networkUrls), ...secret })
  }

  // Paged by id: `?limit=50&after=<last id of the previous page>`; `nextAfter` is null on the last page.
  router.get('/', async (req: Request, res: Response) => {
    const { limit, after } = parse(keysPageQuery, req.query)
    const keys = await listAccountKeys(db, { accountId: sessionOf(res).accountId, limit: limit + 1, after })
    const page = keys.slice(0, limit)
    res.json({ keys: page.map(keyView), nextAfter: keys.length > limit ? (page.at(-1)?.id ?? null) : null, networks: networkNames(), rpcUrl: deps.rpcUrl })
  })

  router.post('/', async (req: Request, res: Response) => {
    const { name, networks } = parse(createKeyInput, req.body)
    checkNetworks(networks)
    const { accountId, plan, emailVerified } = sessionOf(res)
    if (!emailVerified) throw new ApiError(403, 'verify your email address first: open the link we sent you (or send a new one)')
    const outcome = await boundedTransaction(db, async (tx) => {
      await lockAccount(tx, { accountId })
      if ((await countLiveAccountKeys(tx, { accountId })) >= deps.maxKeys) return null
      const { key, row } = await createApiKey(tx, { plan, label: name, accountId, networks: networks ?? null })
      return { key, row: await findAccountKey(tx, { accountId, keyId: row.id }) }
    })
    if (outcome === null) throw new ApiError(409, `at most ${deps.maxKeys} live keys per account: revoke one first`)
    created(res, outcome.key, outcome.row)
  })

  router.get('/:id', async (req: Request, res: Response) => {
    const key = await owned(res, keyId(req.params.id))
    res.json({ key: keyView(key), endpoints: endpointsFor(deps.rpcUrl, key.networks ?? networkNames(), '<API_KEY>', deps.networkUrls) })
  })

  router.patch('/:id', async (req: Request, res: Response) => {
    const id = keyId(req.params.id)
    const patch = parse(updateKeyInput, req.body)
    const current = await owned(res, id)
    checkNetworks(patch.networks)
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
    const { secret, secretHash, authorization } = newKeySecret()
    if (!(await setAccountKeySecret(db, { accountId: sessionOf(res).accountId, keyId: id, secretHash }))) throw new ApiError(404, 'no such key')
    res.status(201).json({ secret, authorization })
  })

  router.delete('/:id/secret', async (req: Request, res: Response) => {
    if (!(await setAccountKeySecret(db, { accountId: sessionOf(res).accountId, keyId: keyId(req.params.id), secretHash: null })))
      throw new ApiError(404, 'no such key')
    res.json({ ok: true })
  })

  // Rotate: a new key with the same settings, the old one revoked, in one transaction. A key
  // that requires a secret must say whether the secret is rotated too (`new`, shown once) or kept.
  router.post('/:id/rotate', async (req: Request, res: Response) => {
    const id = keyId(req.params.id)
    const { secret: choice } = parse(rotateInput, req.body)
    const { accountId } = sessionOf(res)
    const outcome = await boundedTransaction(db, async (tx) => {
      const settings = await keySettingsForCopy(tx, { accountId, keyId: id })
      if (settings === null || settings.revokedAt !== null) return null
      if (settings.secretHash !== null && choice === undefined)
        throw new ApiError(400, 'secret: the key requires a secret: say "new" to rotate it too (after a leak) or "keep" to keep it')
      const secret = settings.secretHash !== null && choice === 'new' ? newKeySecret() : undefined
      const { key, row } = await createApiKey(tx, { plan: settings.plan, label: settings.label ?? undefined, accountId })
      await copyKeySettings(tx, { accountId, keyId: row.id, settings: secret === undefined ? settings : { ...settings, secretHash: secret.secretHash } })
      await revokeAccountKey(tx, { accountId, keyId: id })
      return { key, row: await findAccountKey(tx, { accountId, keyId: row.id }), secret }
    })
    if (outcome === null) throw new ApiError(404, 'no such key')
    const { secret } = outcome
    created(res, outcome.key, outcome.row, secret === undefined ? undefined : { secret: secret.secret, authorization: secret.authorization })
  })

  router.post('/:id/revoke', async (req: Request, res: Response) => {
    if (!(await revokeAccountKey(db, { accountId: sessionOf(res).accountId, keyId: keyId(req.params.id) }))) throw new ApiError(404, 'no such key')
    res.json({ ok: true })
  })

  return router
}
