import type { Db } from '@uncle-rpc/db'
import { addHourlyUsage, addUsage, zeroUsageCounts } from '@uncle-rpc/db/accounts'
import { registerNetwork } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, useTestDatabase } from '@uncle-rpc/db/testing'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type ApiUser, callApi, signIn, signUp, startTestDashboard, type TestDashboard } from './_test/client.js'
import { verifyPassword } from '@uncle-rpc/accounts'

// The dashboard's API against a real Postgres: accounts can't reach each other's keys, state
// changes need the CSRF token, passwords are only hashed, cookies are locked down, guessing is slowed.

describe('dashboard API security', () => {
  let database: OpenTestDatabase
  let db: Db
  let app: TestDashboard
  let alice: ApiUser
  let mallory: ApiUser
  let aliceKey: number
  useTestDatabase({ max: 4 }, (opened) => {
    database = opened
    db = opened.db
  })

  beforeAll(async () => {
    await registerNetwork(db, { name: 'mainnet', chainId: 1n })
    app = await startTestDashboard(db, { throttle: { freeFailures: 3, baseLockMs: 60_000 }, trustProxy: ['loopback'] })
    alice = await signUp(app, 'Alice@Example.com')
    mallory = await signUp(app, 'mallory@example.com')
    const created = await alice.call('POST', '/keys', { name: 'alice web' })
    expect(created.status).toBe(201)
    aliceKey = (created.body.key as { id: number }).id
    await addUsage(db, [{ keyId: aliceKey, day: new Date().toISOString().slice(0, 10), ...zeroUsageCounts(), requests: 7, errors: 1 }])
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString()
    await addHourlyUsage(db, [{ keyId: aliceKey, hour, network: 'mainnet', ...zeroUsageCounts(), requests: 7, errors: 1 }])
  })
  afterAll(async () => {
    await app?.close()
  })

  test("behavior: IDOR: no route reads or changes another account's key", async () => {
    const path = `/keys/${aliceKey}`
    const attempts = [
      ['GET', path],
      ['PATCH', path, { name: 'owned', allowedOrigins: ['https://evil.io'] }],
      ['POST', `${path}/secret`],
      ['DELETE', `${path}/secret`],
      ['POST', `${path}/rotate`],
      ['POST', `${path}/revoke`],
    ] as const
    for (const [method, route, body] of attempts) expect((await mallory.call(method, route, body)).status, `${method} ${route}`).toBe(404)
    expect((await mallory.call('GET', '/keys')).body.keys).toEqual([])
    const stolen = await mallory.call('GET', `/usage?key=${aliceKey}`)
    expect(stolen.status).toBe(200)
    expect([...(stolen.body.daily as { requests: number }[]), ...(stolen.body.hourly as { requests: number }[])].every((p) => p.requests === 0)).toBe(true)
    // Alice's key is untouched and her usage is hers.
    const mine = await alice.call('GET', path)
    expect(mine.body.key).toMatchObject({ name: 'alice web', allowedOrigins: [], requireSecret: false, revokedAt: null })
    const usage = await alice.call('GET', `/usage?key=${aliceKey}&network=mainnet`)
    expect((usage.body.daily as { requests: number }[]).at(-1)?.requests).toBe(7)
    expect((usage.body.hourly as { requests: number }[]).at(-1)?.requests).toBe(7)
    // Ids that are not ids are 404s, not 500s.
    for (const bad of ['abc', '0', '-1', '99999999999']) expect((await alice.call('GET', `/keys/${bad}`)).status).toBe(404)
  })

  test('behavior: CSRF: a state change without the token, with a wrong one, from another origin or as a form is refused', async () => {
    const create = { name: 'csrf' }
    expect((await alice.call('POST', '/keys', create, { 'x-csrf-token': '' })).status).toBe(403)
    expect((await alice.call('POST', '/keys', create, { 'x-csrf-token': 'x'.repeat(43) })).status).toBe(403)
    expect((await alice.call('POST', '/keys', create, { origin: 'https://evil.example' })).status).toBe(403)
    expect((await alice.call('POST', '/keys', create, { 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    const form = await callApi(app.base, 'POST', `/keys/${aliceKey}/revoke`, {
      body: 'x=1',
      headers: { cookie: alice.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(form.status).toBe(415)
    expect((await callApi(app.base, 'POST', '/signin', { body: { email: 'alice@example.com', password: 'x' }, headers: { origin: 'https://evil.example' } })).status).toBe(403)
    expect((await alice.call('GET', `/keys/${aliceKey}`)).body.key).toMatchObject({ revokedAt: null })
    expect((await alice.call('POST', '/keys', create)).status).toBe(201)
  })

  test('behavior: passwords are stored only as scrypt hashes', async () => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    const { rows } = await client.query<{ email: string; password_hash: string }>("select email, password_hash from accounts where email like '%example.com' order by id")
    await client.end()
    expect(rows.map((r) => r.email)).toEqual(['alice@example.com', 'mallory@example.com'])
    for (const { password_hash: hash } of rows) {
      expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/)
      expect(hash).not.toContain('correct horse')
      expect(await verifyPassword('correct horse battery', hash)).toBe(true)
      expect(await verifyPassword('correct horse batterY', hash)).toBe(false)
    }
  })

  test('behavior: the session cookie is HttpOnly, SameSite=Strict, Secure behind https; sign-out ends the session', async () => {
    const answer = await callApi(app.base, 'POST', '/signin', { body: { email: 'mallory@example.com', password: 'correct horse battery' } })
    const cookie = answer.headers.get('set-cookie') ?? ''
    expect(cookie).toMatch(/^uncle_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/)
    const proxied = await callApi(app.base, 'POST', '/signin', {
      body: { email: 'mallory@example.com', password: 'correct horse battery' },
      headers: { 'x-forwarded-proto': 'https', origin: app.base.replace('http:', 'https:') },
    })
    expect(proxied.status).toBe(200)
    expect(proxied.headers.get('set-cookie')).toMatch(/; Secure$/)
    const user = await signIn(app, 'mallory@example.com')
    expect((await user.call('POST', '/signout')).status).toBe(200)
    expect((await user.call('GET', '/keys')).status).toBe(401)
  })

  test('behavior: sign-in guessing is slowed: after 3 failures even the right password waits (429, Retry-After)', async () => {
    await signUp(app, 'victim@example.com')
    const guess = (password: string) => callApi(app.base, 'POST', '/signin', { body: { email: 'victim@example.com', password } })
    for (let i = 0; i < 3; i++) expect((await guess(`wrong ${i}`)).status).toBe(401)
    const locked = await guess('correct horse battery')
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(59)
    // The failures are in Postgres: a second dashboard process on the same database refuses too.
    const other = await startTestDashboard(db, { throttle: { freeFailures: 3, baseLockMs: 60_000 } })
    try {
      const elsewhere = await callApi(other.base, 'POST', '/signin', { body: { email: 'victim@example.com', password: 'correct horse battery' } })
      expect(elsewhere.status).toBe(429)
    } finally {
      await other.close()
    }
    // An unknown email answers like a wrong password.
    expect((await callApi(app.base, 'POST', '/signin', { body: { email: 'nobody@example.com', password: 'whatever1234' } })).body).toEqual({ error: 'wrong email or password' })
  })

  test('behavior: markup in a key name is stored and returned as text; limits above the plan and too many entries are refused', async () => {
    const name = '<img src=x onerror="alert(1)"><b>bold</b>'
    const created = await alice.call('POST', '/keys', { name })
    expect(created.headers.get('content-type')).toMatch(/^application\/json/)
    expect((created.body.key as { name: string }).name).toBe(name)
    const id = (created.body.key as { id: number }).id
    expect((await alice.call('PATCH', `/keys/${id}`, { rpsCap: 11 })).body).toEqual({ error: "rpsCap: at most your plan's 10 requests per second" })
    expect((await alice.call('PATCH', `/keys/${id}`, { allowedOrigins: Array.from({ length: 31 }, (_, i) => `a${i}.io`) })).status).toBe(400)
    expect((await alice.call('PATCH', `/keys/${id}`, { allowedOrigins: ['javascript:alert(1)'] })).status).toBe(400)
    const ok = await alice.call('PATCH', `/keys/${id}`, { rpsCap: 5, dailyCap: 1000, allowedOrigins: ['https://app.example.com', '*.example.org'] })
    expect(ok.body.key).toMatchObject({ rpsCap: 5, dailyCap: 1000, allowedOrigins: ['https://app.example.com', '*.example.org'] })
  })

  test('error: signed out → 401; invite-only sign-up → 403', async () => {
    expect((await callApi(app.base, 'GET', '/keys')).status).toBe(401)
    const invite = await startTestDashboard(db, { signup: 'invite' })
    try {
      expect((await callApi(invite.base, 'POST', '/signup', { body: { email: 'new@example.com', password: 'long enough pw' } })).status).toBe(403)
    } finally {
      await invite.close()
    }
  })
})
