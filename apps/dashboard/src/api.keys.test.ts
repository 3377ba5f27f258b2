import { createHash } from 'node:crypto'
import type { Db } from '@uncle-rpc/db'
import { findKeyPolicy, hashSecret } from '@uncle-rpc/db/accounts'
import { useTestDatabase } from '@uncle-rpc/db/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type ApiUser, signUp, startTestDashboard, type TestDashboard } from './_test/client.js'

// Keys through the JSON API: endpoints, secret, caps, rotation, as the RPC service will see them.

describe('dashboard API: keys', () => {
  let db: Db
  let app: TestDashboard
  let dev: ApiUser
  useTestDatabase({ max: 4 }, (opened) => (db = opened.db))

  beforeAll(async () => {
    app = await startTestDashboard(db, { rpcUrl: 'https://rpc.example.com/', networks: ['mainnet', 'sepolia'] })
    dev = await signUp(app, 'dev@example.com')
  })
  afterAll(async () => {
    await app?.close()
  })

  test('default: a new key comes once with an HTTP and a WebSocket endpoint per network; the RPC sees its settings', async () => {
    const created = await dev.call('POST', '/keys', { name: 'wallet', networks: ['sepolia'] })
    expect(created.status).toBe(201)
    const apiKey = created.body.apiKey as string
    expect(apiKey).toMatch(/^[0-9a-f]{32}$/)
    expect(created.body.endpoints).toEqual([
      { network: 'sepolia', http: `https://rpc.example.com/sepolia/v3/${apiKey}`, ws: `wss://rpc.example.com/sepolia/ws/v3/${apiKey}` },
    ])
    const id = (created.body.key as { id: number }).id
    expect(JSON.stringify((await dev.call('GET', `/keys/${id}`)).body)).not.toContain(apiKey)
    expect((await dev.call('POST', '/keys', { name: 'x', networks: ['nowhere'] })).body).toEqual({ error: 'networks: no network named "nowhere"' })

    const secret = await dev.call('POST', `/keys/${id}/secret`)
    expect(secret.status).toBe(201)
    expect(secret.body.authorization).toBe(`Basic ${Buffer.from(`:${secret.body.secret as string}`).toString('base64')}`)
    await dev.call('PATCH', `/keys/${id}`, { rpsCap: 4, dailyCap: 50, allowedUserAgents: ['wallet/', 'wallet/'] })
    const policy = await findKeyPolicy(db, { keyHash: hashSecret(apiKey) })
    expect(policy).toMatchObject({ requestsPerSecond: 4, requestsPerDay: 50, networks: ['sepolia'], allowedUserAgents: ['wallet/'] })
    expect(policy?.secretHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await dev.call('GET', `/keys/${id}`)).body.key).toMatchObject({ requireSecret: true, rpsCap: 4 })
    await dev.call('PATCH', `/keys/${id}`, { rpsCap: null })
    expect((await findKeyPolicy(db, { keyHash: hashSecret(apiKey) }))?.requestsPerSecond).toBe(10)
  })

  test('behavior: a network with a publicUrl in the config shows its own address; the others stay under --rpc-url by path', async () => {
    const own = await startTestDashboard(db, {
      rpcUrl: 'https://rpc.example.com/',
      networks: ['mainnet', 'sepolia'],
      networkUrls: new Map([['mainnet', 'https://uncles.mycompany.com']]),
    })
    try {
      const user = await signUp(own, 'own@example.com')
      const created = await user.call('POST', '/keys', { name: 'wallet' })
      const apiKey = created.body.apiKey as string
      expect(created.body.endpoints).toEqual([
        { network: 'mainnet', http: `https://uncles.mycompany.com/v3/${apiKey}`, ws: `wss://uncles.mycompany.com/ws/v3/${apiKey}` },
        { network: 'sepolia', http: `https://rpc.example.com/sepolia/v3/${apiKey}`, ws: `wss://rpc.example.com/sepolia/ws/v3/${apiKey}` },
      ])
    } finally {
      await own.close()
    }
  })

  test('behavior: rotate gives a new key with the same settings and revokes the old one; a revoked key cannot be changed', async () => {
    const created = await dev.call('POST', '/keys', { name: 'rotating' })
    const old = { id: (created.body.key as { id: number }).id, key: created.body.apiKey as string }
    await dev.call('PATCH', `/keys/${old.id}`, { allowedOrigins: ['*.example.com'] })
    await dev.call('POST', `/keys/${old.id}/secret`)
    const rotated = await dev.call('POST', `/keys/${old.id}/rotate`, { secret: 'keep' })
    expect(rotated.status).toBe(201)
    expect(rotated.body.key).toMatchObject({ name: 'rotating', allowedOrigins: ['*.example.com'], requireSecret: true, revokedAt: null })
    expect((await findKeyPolicy(db, { keyHash: hashSecret(old.key) }))?.revokedAt).not.toBeNull()
    expect((await dev.call('PATCH', `/keys/${old.id}`, { name: 'again' })).status).toBe(409)
    expect((await dev.call('POST', `/keys/${old.id}/rotate`)).status).toBe(404)
    expect((await dev.call('POST', `/keys/${old.id}/revoke`)).status).toBe(404)
  })

  test('behavior: rotating a key with a secret asks whether to rotate the secret too; a new one is shown once and the old one stops', async () => {
    const created = await dev.call('POST', '/keys', { name: 'leaked' })
    const id = (created.body.key as { id: number }).id
    await dev.call('POST', `/keys/${id}/secret`)
    const oldHash = (await findKeyPolicy(db, { keyHash: hashSecret(created.body.apiKey as string) }))?.secretHash
    expect((await dev.call('POST', `/keys/${id}/rotate`)).body).toEqual({
      error: 'secret: the key requires a secret: say "new" to rotate it too (after a leak) or "keep" to keep it',
    })
    expect((await dev.call('POST', `/keys/${id}/rotate`, { secret: 'maybe' })).status).toBe(400)
    const rotated = await dev.call('POST', `/keys/${id}/rotate`, { secret: 'new' })
    expect(rotated.status).toBe(201)
    const secret = rotated.body.secret as string
    expect(secret).toMatch(/^[\w-]{32}$/)
    expect(rotated.body.authorization).toBe(`Basic ${Buffer.from(`:${secret}`).toString('base64')}`)
    const policy = await findKeyPolicy(db, { keyHash: hashSecret(rotated.body.apiKey as string) })
    expect(policy?.secretHash).toBe(`0x${createHash('sha256').update(secret).digest('hex')}`)
    expect(policy?.secretHash).not.toBe(oldHash)
    // A key without a secret rotates as before, and says nothing of secrets.
    const plain = await dev.call('POST', '/keys', { name: 'plain' })
    const again = await dev.call('POST', `/keys/${(plain.body.key as { id: number }).id}/rotate`)
    expect(again.status).toBe(201)
    expect(again.body.secret).toBeUndefined()
  })

  test('behavior: endpoints come from the configured networks, indexed or not; a key cannot be allowed on no network', async () => {
    expect(await db.$client.query('select count(*)::int as n from networks').then((r) => r.rows[0].n)).toBe(0)
    const created = await dev.call('POST', '/keys', { name: 'fresh deployment' })
    expect((created.body.endpoints as { network: string }[]).map((e) => e.network)).toEqual(['mainnet', 'sepolia'])
    const id = (created.body.key as { id: number }).id
    expect((await dev.call('PATCH', `/keys/${id}`, { networks: ['mainnet'] })).body.key).toMatchObject({ networks: ['mainnet'] })
    expect((await dev.call('GET', `/keys/${id}`)).body.endpoints).toEqual([
      { network: 'mainnet', http: 'https://rpc.example.com/mainnet/v3/<API_KEY>', ws: 'wss://rpc.example.com/mainnet/ws/v3/<API_KEY>' },
    ])
    expect((await dev.call('PATCH', `/keys/${id}`, { networks: [] })).body).toEqual({ error: 'networks: choose at least one network (or null for all)' })
    expect((await dev.call('POST', '/keys', { name: 'none', networks: [] })).status).toBe(400)
    expect((await dev.call('GET', '/keys')).body.networks).toEqual(['mainnet', 'sepolia'])
  })

  test('behavior: upgrade requests are recorded once per plan until granted', async () => {
    expect((await dev.call('POST', '/plan/requests', { plan: 'growth', message: 'more traffic' })).status).toBe(201)
    expect((await dev.call('POST', '/plan/requests', { plan: 'growth' })).status).toBe(201)
    expect((await dev.call('POST', '/plan/requests', { plan: 'team' })).status).toBe(400)
    const plan = await dev.call('GET', '/plan')
    expect(plan.body).toMatchObject({ plan: 'core', requests: [{ plan: 'growth', message: 'more traffic', grantedAt: null }] })
    expect((plan.body.plans as { name: string }[]).map((p) => p.name)).toEqual(['core', 'developer', 'team', 'growth', 'custom'])
  })
})
