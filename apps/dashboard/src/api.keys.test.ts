import { createDb, type Db, findKeyPolicy, hashApiKey, registerNetwork } from '@uncle-rpc/db'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type ApiUser, signUp, startTestDashboard, type TestDashboard } from './_test/client.js'

// Keys through the JSON API: endpoints, secret, caps, rotation, as the RPC service will see them.

describe('dashboard API: keys', () => {
  let database: TestDatabase
  let db: Db
  let close: () => Promise<void>
  let app: TestDashboard
  let dev: ApiUser

  beforeAll(async () => {
    database = await createTestDatabase()
    ;({ db, close } = createDb({ url: database.url, max: 4 }))
    await registerNetwork(db, { name: 'mainnet', chainId: 1n })
    await registerNetwork(db, { name: 'sepolia', chainId: 11155111n })
    app = await startTestDashboard(db, { rpcUrl: 'https://rpc.example.com/' })
    dev = await signUp(app.base, 'dev@example.com')
  })
  afterAll(async () => {
    await app?.dashboard.close()
    await close?.()
    await database?.drop()
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
    const policy = await findKeyPolicy(db, { keyHash: hashApiKey(apiKey) })
    expect(policy).toMatchObject({ requestsPerSecond: 4, requestsPerDay: 50, networks: ['sepolia'], allowedUserAgents: ['wallet/'] })
    expect(policy?.secretHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await dev.call('GET', `/keys/${id}`)).body.key).toMatchObject({ requireSecret: true, rpsCap: 4 })
    await dev.call('PATCH', `/keys/${id}`, { rpsCap: null })
    expect((await findKeyPolicy(db, { keyHash: hashApiKey(apiKey) }))?.requestsPerSecond).toBe(10)
  })

  test('behavior: rotate gives a new key with the same settings and revokes the old one; a revoked key cannot be changed', async () => {
    const created = await dev.call('POST', '/keys', { name: 'rotating' })
    const old = { id: (created.body.key as { id: number }).id, key: created.body.apiKey as string }
    await dev.call('PATCH', `/keys/${old.id}`, { allowedOrigins: ['*.example.com'] })
    await dev.call('POST', `/keys/${old.id}/secret`)
    const rotated = await dev.call('POST', `/keys/${old.id}/rotate`)
    expect(rotated.status).toBe(201)
    expect(rotated.body.key).toMatchObject({ name: 'rotating', allowedOrigins: ['*.example.com'], requireSecret: true, revokedAt: null })
    expect((await findKeyPolicy(db, { keyHash: hashApiKey(old.key) }))?.revokedAt).not.toBeNull()
    expect((await dev.call('PATCH', `/keys/${old.id}`, { name: 'again' })).status).toBe(409)
    expect((await dev.call('POST', `/keys/${old.id}/rotate`)).status).toBe(404)
    expect((await dev.call('POST', `/keys/${old.id}/revoke`)).status).toBe(404)
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
