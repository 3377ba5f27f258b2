import { type Db } from '@uncle-rpc/db'
import { useTestDatabase } from '@uncle-rpc/db/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type ApiUser, callApi, signUp, startTestDashboard, type TestDashboard } from './_test/client.js'

// Issue 24, items 1 and 2: control characters never get in (400 naming the field, never a 500),
// and no log line carries a request's parameters, a hash or a secret.

describe('dashboard API: text input', () => {
  let db: Db
  let app: TestDashboard
  let dev: ApiUser
  let keyId: number
  useTestDatabase({ max: 4 }, (opened) => (db = opened.db))

  beforeAll(async () => {
    app = await startTestDashboard(db)
    dev = await signUp(app, 'dev@example.com')
    keyId = ((await dev.call('POST', '/keys', { name: 'web' })).body.key as { id: number }).id
  })
  afterAll(async () => {
    await app?.close()
  })

  const nul = '\u0000'
  const esc = '\u001b[2J\u001b[1;31m GRANTED by operator'
  const rlo = '\u202egnp.exe'

  test('error: NUL, ESC or a bidi override in any text field → 400 naming the field', async () => {
    for (const bad of [nul, esc, rlo]) {
      const cases: [string, string, Record<string, unknown>, string][] = [
        ['POST', '/signup', { email: `x@y.z${bad}`, password: 'correct horse battery' }, 'email'],
        ['POST', '/signup', { email: 'new@example.com', password: `correct horse${bad}` }, 'password'],
        ['POST', '/signin', { email: `dev@example.com${bad}`, password: 'correct horse battery' }, 'email'],
        ['POST', '/signin', { email: 'dev@example.com', password: `x${bad}` }, 'password'],
        ['POST', '/password/forgot', { email: `dev@example.com${bad}` }, 'email'],
        ['POST', '/password/reset', { token: 'a'.repeat(43), password: `long enough${bad}` }, 'password'],
      ]
      for (const [method, path, body, field] of cases) {
        const answer = await callApi(app.base, method, path, { body })
        expect(answer.status, `${path} ${field} ${JSON.stringify(bad)}`).toBe(400)
        expect(answer.body.error).toMatch(new RegExp(`^${field}: `))
      }
      const signedInCases: [string, string, Record<string, unknown>, string][] = [
        ['POST', '/keys', { name: `key${bad}` }, 'name'],
        ['PATCH', `/keys/${keyId}`, { name: `renamed${bad}` }, 'name'],
        ['POST', '/plan/requests', { plan: 'growth', message: `please${bad}` }, 'message'],
        ['POST', '/password', { currentPassword: 'correct horse battery', newPassword: `new password${bad}` }, 'newPassword'],
      ]
      for (const [method, path, body, field] of signedInCases) {
        const answer = await dev.call(method, path, body)
        expect(answer.status, `${path} ${field} ${JSON.stringify(bad)}`).toBe(400)
        expect(answer.body.error).toMatch(new RegExp(`^${field}: `))
      }
    }
    expect((await dev.call('GET', `/usage?network=main${encodeURIComponent(nul)}net`)).status).toBe(400)
    // An upgrade message may have line breaks, nothing else.
    expect((await dev.call('POST', '/plan/requests', { plan: 'growth', message: 'line one\nline two' })).status).toBe(201)
  })

  test('error: an email must look like one: no spaces, one @, a real domain', async () => {
    for (const email of ['evil\u001b[31mRED\u001b[0m@x.io', 'a b@x.io', 'a@@x.io', 'a@x', 'a@-x.io', '.a@x.io', 'a..b@x.io', 'a@x.i', `${'a'.repeat(65)}@x.io`, 'ä@x.io']) {
      const answer = await callApi(app.base, 'POST', '/signup', { body: { email, password: 'correct horse battery' } })
      expect(answer.status, email).toBe(400)
      expect(answer.body.error).toMatch(/^email: /)
    }
    for (const email of ['o\'neil+tag@mail.example.co.uk', 'x@xn--bcher-kva.example']) {
      expect((await callApi(app.base, 'POST', '/signup', { body: { email, password: 'correct horse battery' } })).status, email).toBe(202)
    }
  })

  test('behavior: no log line carries a request parameter, a password hash or a secret', async () => {
    const password = 'a secret password 4 logs'
    await callApi(app.base, 'POST', '/signup', { body: { email: `leak@example.com${nul}`, password } })
    await callApi(app.base, 'POST', '/signin', { body: { email: `leak@example.com${nul}`, password } })
    await callApi(app.base, 'POST', '/signin', { body: { email: 'dev@example.com', password } })
    await dev.call('POST', '/keys', { name: `leak-name${nul}` })
    await dev.call('PATCH', `/keys/${keyId}`, { name: `leak-rename${nul}` })
    const secret = (await dev.call('POST', `/keys/${keyId}/secret`)).body.secret as string
    const created = await dev.call('POST', '/keys', { name: 'logged?' })
    await app.dashboard.links.settled()
    const log = app.logs.join('\n')
    expect(log).toContain('"msg":"sign-in failed"')
    for (const leak of [password, 'leak@example.com', 'leak-name', 'leak-rename', 'scrypt$', 'params', secret, created.body.apiKey as string, 'dev@example.com'])
      expect(log, leak).not.toContain(leak)
  })
})
