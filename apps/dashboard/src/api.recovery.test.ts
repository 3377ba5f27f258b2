import { type Db } from '@uncle-rpc/db'
import { type OpenTestDatabase, useTestDatabase } from '@uncle-rpc/db/testing'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { callApi, signIn, signUp, startTestDashboard, type TestDashboard, userOf } from './_test/client.js'
import { linkToken } from './_test/mail.js'

// Issue 24, items 3 and 5: email verification, password reset by a single-use expiring link as
// the way past any sign-in lock, password change, sign out everywhere, session rotation, idle
// timeout, the password rule. Real Postgres, real SMTP server in-process.

describe('dashboard API: recovery and account hygiene', () => {
  let database: OpenTestDatabase
  let db: Db
  let app: TestDashboard
  useTestDatabase({ max: 4 }, (opened) => {
    database = opened
    db = opened.db
  })

  beforeAll(async () => {
    // Per-address limits raised: this file signs in often from one address on purpose.
    app = await startTestDashboard(db, { throttle: { freeFailures: 3, freeFailuresPerAddress: 8, baseLockMs: 60_000 }, limits: { signup: { limit: 100, windowMs: 60_000 } } })
  })
  afterAll(async () => {
    await app?.close()
  })

  const sql = async (text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      return (await client.query(text, values)).rows
    } finally {
      await client.end()
    }
  }
  // Each test starts with no failed sign-ins from the shared test address.
  afterEach(async () => {
    await sql('delete from sign_in_failures')
  })
  const forgot = async (email: string) => {
    const seen = app.mail.received.length
    const answer = await callApi(app.base, 'POST', '/password/forgot', { body: { email } })
    expect(answer.status).toBe(202)
    return linkToken(await app.mail.next(email, seen), 'reset')
  }

  test('default: sign-up mails a verification link; unverified, the account signs in but cannot make keys; the link verifies and signs in once', async () => {
    const seen = app.mail.received.length
    const signup = await callApi(app.base, 'POST', '/signup', { body: { email: 'new@example.com', password: 'correct horse battery' } })
    expect(signup.status).toBe(202)
    expect(signup.headers.get('set-cookie')).toBeNull()
    const mail = await app.mail.next('new@example.com', seen)
    expect(mail.text).toContain(`${app.base}/#/verify/`)
    const unverified = await signIn(app, 'new@example.com')
    expect((await unverified.call('GET', '/session')).body.account).toEqual({ email: 'new@example.com', plan: 'core', emailVerified: false })
    expect((await unverified.call('POST', '/keys', { name: 'too early' })).body).toEqual({ error: 'verify your email address first: open the link we sent you (or send a new one)' })
    // Send again: a second link; both work until one is used.
    expect((await unverified.call('POST', '/verify/send')).status).toBe(202)
    const again = await app.mail.next('new@example.com', seen + 1)
    const verified = await callApi(app.base, 'POST', '/verify', { body: { token: linkToken(again, 'verify') } })
    expect(verified.status).toBe(200)
    expect(verified.body.account).toMatchObject({ emailVerified: true })
    const user = userOf(app.base, verified)
    expect((await user.call('POST', '/keys', { name: 'now' })).status).toBe(201)
    expect((await callApi(app.base, 'POST', '/verify', { body: { token: linkToken(again, 'verify') } })).status).toBe(400)
  })

  test("behavior: an attacker's wrong passwords lock sign-in, never the owner: the reset email gets her in (single use)", async () => {
    const owner = await signUp(app, 'owner@example.com')
    const other = await signIn(app, 'owner@example.com')
    const attack = () => callApi(app.base, 'POST', '/signin', { body: { email: 'owner@example.com', password: 'guess guess guess' } })
    for (let i = 0; i < 10; i++) expect([401, 429]).toContain((await attack()).status)
    const locked = await callApi(app.base, 'POST', '/signin', { body: { email: 'owner@example.com', password: 'correct horse battery' } })
    expect(locked.status).toBe(429)
    expect(locked.body.error).toMatch(/reset your password by email/)

    const token = await forgot('owner@example.com')
    // The rule is checked before the link is used up.
    expect((await callApi(app.base, 'POST', '/password/reset', { body: { token, password: 'owner@example.com' } })).status).toBe(400)
    const reset = await callApi(app.base, 'POST', '/password/reset', { body: { token, password: 'a brand new passphrase' } })
    expect(reset.status).toBe(200)
    const back = userOf(app.base, reset)
    expect((await back.call('GET', '/keys')).status).toBe(200)
    // Single use; older sessions ended; the lock is lifted for the new password.
    expect((await callApi(app.base, 'POST', '/password/reset', { body: { token, password: 'another new passphrase' } })).status).toBe(400)
    expect((await owner.call('GET', '/keys')).status).toBe(401)
    expect((await other.call('GET', '/keys')).status).toBe(401)
    expect(await sql("select key from sign_in_failures where key like 'e:%'")).toEqual([])
  })

  test('behavior: a user sharing an address with an attacker gets in through the reset email', async () => {
    await signUp(app, 'neighbour@example.com')
    for (let i = 0; i < 10; i++) await callApi(app.base, 'POST', '/signin', { body: { email: `someone${i}@example.com`, password: 'guess guess guess' } })
    expect((await callApi(app.base, 'POST', '/signin', { body: { email: 'neighbour@example.com', password: 'correct horse battery' } })).status).toBe(429)
    const token = await forgot('neighbour@example.com')
    const reset = await callApi(app.base, 'POST', '/password/reset', { body: { token, password: 'quiet street passphrase' } })
    expect(reset.status).toBe(200)
    expect((await userOf(app.base, reset).call('GET', '/session')).body.account).toMatchObject({ email: 'neighbour@example.com', emailVerified: true })
  })

  test('behavior: a reset link expires; an unknown email gets the same answer and no email', async () => {
    await signUp(app, 'late@example.com')
    const token = await forgot('late@example.com')
    await sql("update account_tokens set expires_at = now() - interval '1 second' where purpose = 'reset'")
    expect((await callApi(app.base, 'POST', '/password/reset', { body: { token, password: 'too late passphrase' } })).body).toEqual({
      error: 'this link has expired or was already used: ask for a new one',
    })
    const seen = app.mail.received.length
    const unknown = await callApi(app.base, 'POST', '/password/forgot', { body: { email: 'nobody@example.com' } })
    expect(unknown.status).toBe(202)
    expect(unknown.body.message).toBe('If nobody@example.com has an account, we sent it a link to reset the password')
    await app.dashboard.links.settled()
    expect(app.mail.received.slice(seen).filter((m) => m.to.includes('nobody@example.com'))).toEqual([])
  })

  test('behavior: password change ends the other sessions; sign out everywhere ends all', async () => {
    const laptop = await signUp(app, 'changer@example.com')
    const phone = await signIn(app, 'changer@example.com')
    expect((await laptop.call('POST', '/password', { currentPassword: 'wrong password!', newPassword: 'fresh new passphrase' })).body).toEqual({ error: 'currentPassword: wrong password' })
    expect((await laptop.call('POST', '/password', { currentPassword: 'correct horse battery', newPassword: 'aaaaaaaaaaaa' })).body).toEqual({ error: 'newPassword: do not repeat one character' })
    const changed = await laptop.call('POST', '/password', { currentPassword: 'correct horse battery', newPassword: 'fresh new passphrase' })
    expect(changed.status).toBe(200)
    expect((await phone.call('GET', '/keys')).status).toBe(401)
    const laptopAgain = userOf(app.base, changed)
    expect((await laptopAgain.call('GET', '/keys')).status).toBe(200)
    const tablet = await signIn(app, 'changer@example.com', 'fresh new passphrase')
    expect((await tablet.call('POST', '/signout/everywhere')).status).toBe(200)
    expect((await tablet.call('GET', '/keys')).status).toBe(401)
    expect((await laptopAgain.call('GET', '/keys')).status).toBe(401)
  })

  test('behavior: signing in again drops the session the browser had; an idle session ends', async () => {
    const first = await signUp(app, 'rotor@example.com')
    const again = await callApi(app.base, 'POST', '/signin', { body: { email: 'rotor@example.com', password: 'correct horse battery' }, headers: { cookie: first.cookie } })
    expect(again.status).toBe(200)
    expect((again.headers.get('set-cookie') ?? '').split(';')[0]).not.toBe(first.cookie)
    expect((await first.call('GET', '/keys')).status).toBe(401)
    const second = userOf(app.base, again)
    expect((await second.call('GET', '/keys')).status).toBe(200)
    // 13 hours without a request (the idle limit is 12 h; the absolute one 7 days).
    await sql("update sessions set last_seen_at = now() - interval '13 hours' from accounts where accounts.id = sessions.account_id and accounts.email = 'rotor@example.com'")
    expect((await second.call('GET', '/keys')).status).toBe(401)
  })

  test('error: the password rule refuses the email, one repeated character and very common passwords', async () => {
    const signup = (email: string, password: string) => callApi(app.base, 'POST', '/signup', { body: { email, password } })
    expect((await signup('weak@example.com', 'aaaaaaaaaa')).body).toEqual({ error: 'password: do not repeat one character' })
    expect((await signup('weak@example.com', 'weak@example.com')).body).toEqual({ error: 'password: do not use your email address in your password' })
    expect((await signup('weak@example.com', 'Password123')).body).toEqual({ error: 'password: this password is too common: choose another' })
    expect((await signup('weak@example.com', 'short')).body).toEqual({ error: 'password: use at least 10 characters' })
  })
})
