import { type Db } from '@uncle-rpc/db'
import { type OpenTestDatabase, useTestDatabase } from '@uncle-rpc/db/testing'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { callApi, signUp, startTestDashboard, type TestDashboard } from './_test/client.js'

// Issue 24, items 4 and 9: abuse limits (sign-ups per address, no enumeration, keys per account
// and paging, upgrade requests), whose X-Forwarded-For is believed, HSTS, JSON 404s.

describe('dashboard API: abuse limits', () => {
  let database: OpenTestDatabase
  let db: Db
  let app: TestDashboard
  useTestDatabase({ max: 4 }, (opened) => {
    database = opened
    db = opened.db
  })

  beforeAll(async () => {
    app = await startTestDashboard(db, { maxKeys: 12 })
  })
  // Each test starts with fresh per-address counters (every request here comes from 127.0.0.1).
  afterEach(async () => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    await client.query('delete from request_limits')
    await client.end()
  })
  afterAll(async () => {
    await app?.close()
  })

  test('behavior: 60 sign-ups from one address: past the 10th, 429 with Retry-After (X-Forwarded-For is not believed by default)', async () => {
    const statuses: number[] = []
    let retryAfter = ''
    for (let i = 0; i < 60; i++) {
      const answer = await callApi(app.base, 'POST', '/signup', {
        body: { email: `bulk${i}@example.com`, password: 'correct horse battery' },
        headers: { 'x-forwarded-for': `198.51.100.${i}` },
      })
      statuses.push(answer.status)
      if (answer.status === 429) retryAfter = answer.headers.get('retry-after') ?? ''
    }
    expect(statuses.filter((s) => s === 202)).toHaveLength(10)
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true)
    expect(Number(retryAfter)).toBeGreaterThan(3000)
  })

  test('behavior: behind a trusted proxy each client address has its own limit; others cannot claim one', async () => {
    const proxied = await startTestDashboard(db, { trustProxy: ['loopback'], limits: { signup: { limit: 2, windowMs: 60_000 } } })
    try {
      const from = (address: string, i: number) =>
        callApi(proxied.base, 'POST', '/signup', { body: { email: `p${address}-${i}@example.com`, password: 'correct horse battery' }, headers: { 'x-forwarded-for': address } })
      expect([(await from('203.0.113.1', 1)).status, (await from('203.0.113.1', 2)).status, (await from('203.0.113.1', 3)).status]).toEqual([202, 202, 429])
      expect((await from('203.0.113.2', 1)).status).toBe(202)
    } finally {
      await proxied.close()
    }
  })

  test('behavior: sign-up answers alike for a new and a taken email; the owner of the taken one gets an email', async () => {
    const other = await startTestDashboard(db)
    try {
      const user = await signUp(other, 'taken@example.com')
      expect(user.csrf).toBeTruthy()
      const seen = other.mail.received.length
      const fresh = await callApi(other.base, 'POST', '/signup', { body: { email: 'fresh@example.com', password: 'another passphrase' } })
      const taken = await callApi(other.base, 'POST', '/signup', { body: { email: 'taken@example.com', password: 'another passphrase' } })
      expect([fresh.status, taken.status]).toEqual([202, 202])
      expect(taken.body).toEqual({ ok: true, message: 'We sent a link to taken@example.com' })
      expect(Object.keys(fresh.body)).toEqual(Object.keys(taken.body))
      expect([fresh.headers.get('set-cookie'), taken.headers.get('set-cookie')]).toEqual([null, null])
      const note = await other.mail.next('taken@example.com', seen)
      expect(note.text).toContain('already has an account')
      expect(note.text).toContain(`${other.base}/#/reset/`)
    } finally {
      await other.close()
    }
  })

  test('behavior: at most --max-keys live keys per account; GET /api/keys is paged', async () => {
    const dev = await signUp(app, 'keys@example.com')
    const made = await Promise.all(Array.from({ length: 15 }, (_, i) => dev.call('POST', '/keys', { name: `k${i}` })))
    expect(made.filter((a) => a.status === 201)).toHaveLength(12)
    expect(made.find((a) => a.status === 409)?.body).toEqual({ error: 'at most 12 live keys per account: revoke one first' })
    const first = await dev.call('GET', '/keys?limit=5')
    expect((first.body.keys as unknown[]).length).toBe(5)
    const ids: number[] = []
    let after: unknown = 0
    while (after !== null) {
      const page = await dev.call('GET', `/keys?limit=5&after=${String(after)}`)
      ids.push(...(page.body.keys as { id: number }[]).map((k) => k.id))
      after = page.body.nextAfter
    }
    expect(ids).toHaveLength(12)
    expect([...ids].sort((a, b) => a - b)).toEqual(ids)
    expect((await dev.call('GET', '/keys?limit=1000')).status).toBe(400)
    // Revoking one makes room for one.
    await dev.call('POST', `/keys/${ids[0]}/revoke`)
    expect((await dev.call('POST', '/keys', { name: 'room again' })).status).toBe(201)
  })

  test('behavior: upgrade requests: 5 a day per account, messages of at most 500 characters', async () => {
    const dev = await signUp(app, 'upgrade@example.com')
    expect((await dev.call('POST', '/plan/requests', { plan: 'custom', message: 'x'.repeat(501) })).body).toEqual({ error: 'message: at most 500 characters' })
    const statuses = []
    for (let i = 0; i < 8; i++) statuses.push((await dev.call('POST', '/plan/requests', { plan: i % 2 ? 'growth' : 'custom', message: 'more please' })).status)
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429, 429])
  })

  test('behavior: HSTS only over https (X-Forwarded-Proto from a trusted proxy); unknown paths get a JSON 404', async () => {
    const proxied = await startTestDashboard(db, { trustProxy: ['127.0.0.1'] })
    try {
      const https = await fetch(`${proxied.base}/`, { headers: { 'x-forwarded-proto': 'https' } })
      expect(https.headers.get('strict-transport-security')).toBe('max-age=31536000')
      expect((await fetch(`${proxied.base}/`)).headers.get('strict-transport-security')).toBeNull()
      // Not trusted: the header is ignored.
      expect((await fetch(`${app.base}/`, { headers: { 'x-forwarded-proto': 'https' } })).headers.get('strict-transport-security')).toBeNull()
    } finally {
      await proxied.close()
    }
    for (const path of ['/nothing-here', '/js/missing.js', '/api/nothing']) {
      const res = await fetch(`${app.base}${path}`)
      expect(res.status, path).toBe(404)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(((await res.json()) as { error: string }).error).toMatch(/not found|no such API route/)
    }
  })
})
