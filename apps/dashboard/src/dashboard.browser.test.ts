import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hashHeader, headerFromRpc } from '@uncle-rpc/chain'
import { createLogger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { listUpgradeRequests } from '@uncle-rpc/db/accounts'
import { latestUncle } from '@uncle-rpc/db/chain'
import { openTestDatabase, type OpenTestDatabase } from '@uncle-rpc/db/testing'
import { createRpcServer, type RpcServer } from '@uncle-rpc/rpc'
import { type CliProcess, runCli, spawnCli } from '@uncle-rpc/testing'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { haveChromium, launchChromium, screenshotsDir } from './_test/browser.js'
import { startTestDashboard, type TestDashboard } from './_test/client.js'
import { createMailer } from './mail/mailer.js'

// The developer's path in a real browser: sign up, verify the email by the emailed link (a real
// SMTP server in-process), create a key, copy its endpoint, call it and get a real uncle (a
// synthetic chain indexed from the sample node), see the call in the usage view, restrict the key
// to one Origin (403 -32002 for others, counted as refused in the usage view), require a secret and rotate key and secret (the old
// secret stops working), reset the password from the emailed link, revoke the key (401).
// Screenshots of each page go to apps/dashboard/screenshots (git-ignored), at desktop and phone width.

const network = 'devnet'
const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshotsDir, `${name}.png`), fullPage: true })

describe.skipIf(!haveChromium())('dashboard in a browser', () => {
  let database: OpenTestDatabase
  let db: Db
  let node: CliProcess
  let rpc: RpcServer
  let rpcBase: string
  let app: TestDashboard
  let closeBrowser: () => Promise<void>
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    database = await openTestDatabase({ max: 4 })
    db = database.db
    node = spawnCli(['sample-node', '--port', '0', '--synthetic', '300', '--seed', '5'])
    const nodeUrl = (await node.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1] as string
    const config = join(tmpdir(), `uncle-rpc-dashboard-${process.pid}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: network, chainId: 1337, rpcUrl: nodeUrl, toBlock: 299, confirmations: 0 }] }))
    const indexed = await runCli(['indexer', '--config', config, '--exit-when-done'], { env: { DATABASE_URL: database.url } })
    expect(indexed.code, indexed.stderr).toBe(0)
    rpc = createRpcServer({ db, logger: createLogger({ level: 'fatal', name: 'rpc-test' }) }, { networks: [{ name: network, confirmations: 0 }], usageFlushMs: 200 })
    rpcBase = `http://127.0.0.1:${(await rpc.listen(0, '127.0.0.1')).port}`
    app = await startTestDashboard(db, { rpcUrl: rpcBase, networks: [network] })
    ;({ context, close: closeBrowser } = await launchChromium({ width: 1200, height: 900 }))
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.base })
    page = await context.newPage()
    page.on('dialog', (dialog) => void dialog.accept())
  }, 120_000)

  afterAll(async () => {
    await closeBrowser?.()
    await app?.close()
    await rpc?.close()
    await node?.stop()
    await database?.close()
  })

  const status = () => page.getByRole('status')

  const mailedLink = async (to: string, seen: number) => {
    const mail = await app.mail.next(to, seen)
    const link = /(http:\/\/\S+#\/(?:verify|reset)\/[\w-]{43})/.exec(mail.text)?.[1]
    expect(link, mail.text).toBeDefined()
    return link as string
  }

  test('default: sign up, verify by email, create a key, get a real uncle, see it counted, Origin → 403, rotate with a new secret, reset the password, revoke → 401', async () => {
    await page.goto(app.base)
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in to your dashboard')
    await shot(page, '01-sign-in')
    await page.getByRole('button', { name: 'Create an account' }).click()
    await page.getByLabel('Email').fill('dev@example.com')
    await page.getByLabel('Password').fill('a long password')
    await shot(page, '02-sign-up')
    const seen = app.mail.received.length
    await page.getByRole('button', { name: 'Sign up' }).click()
    await page.getByRole('heading', { name: 'Check your email' }).waitFor()
    await shot(page, '02b-check-email')
    await page.goto(await mailedLink('dev@example.com', seen))
    await page.getByRole('heading', { name: 'API keys' }).waitFor()
    await expect.poll(() => status().textContent()).toBe('Email verified: you can create API keys now')
    expect(await page.getByRole('heading', { name: 'Verify your email' }).count()).toBe(0)

    // Markup in the name must come out as text.
    const name = '<img src=x onerror=alert(1)> web'
    await page.getByLabel('Key name').fill(name)
    await page.getByRole('button', { name: 'Create key' }).click()
    await page.getByRole('heading', { name: `Your new key "${name}"` }).waitFor()
    expect(await page.locator('main img').count()).toBe(0)
    await page.getByRole('button', { name: `Copy HTTP endpoint (${network})` }).click()
    await expect.poll(() => status().textContent()).toBe(`HTTP endpoint (${network}) copied`)
    const endpoint = await page.evaluate<string>('navigator.clipboard.readText()')
    expect(endpoint).toMatch(new RegExp(`^${rpcBase}/${network}/v3/[0-9a-f]{32}$`))
    await shot(page, '03-key-created')

    const uncle = (await latestUncle(db, { network }))!
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getUncleByBlockHashAndIndex', params: [uncle.blockHash, `0x${uncle.index.toString(16)}`] })
    const answer = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: call })
    expect(answer.status).toBe(200)
    const { result } = (await answer.json()) as { result: Record<string, unknown> }
    const header = headerFromRpc(result)
    expect(hashHeader(header)).toBe(header.hash)

    await rpc.usage.flush()
    await page.getByRole('link', { name: 'Usage' }).click()
    await page.getByRole('heading', { name: 'Requests per day (last 30 days)' }).waitFor()
    const today = new Date().toISOString().slice(0, 10)
    const dayRow = page.getByRole('table', { name: 'Requests per day (last 30 days): numbers' }).getByRole('row', { name: today.slice(5) })
    expect(await dayRow.getByRole('cell').first().textContent()).toBe('1')
    const hourRow = page.getByRole('table', { name: 'Requests per hour (last 24 hours): numbers' }).getByRole('row').nth(1)
    expect(await hourRow.getByRole('cell').first().textContent()).toBe('1')
    const methodRow = page.getByRole('table', { name: 'Requests per method (last 30 days)' }).getByRole('row', { name: 'eth_getUncleByBlockHashAndIndex' })
    expect(await methodRow.getByRole('cell').allTextContents()).toEqual(['1', '0'])
    await shot(page, '04-usage')

    await page.getByRole('link', { name: 'Keys' }).click()
    await page.getByRole('link', { name: `Settings of ${name}` }).click()
    await page.getByLabel('Allowed origins').fill('https://app.example.com')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await expect.poll(() => status().textContent()).toContain('Settings saved')
    expect(await page.getByLabel('Allowed origins').inputValue()).toBe('https://app.example.com')
    await shot(page, '05-key-settings')
    await rpc.auth.refresh()
    const from = (origin: string) => fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: call })
    const refused = await from('https://evil.example.com')
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32002, message: 'rejected due to project ID settings' } })
    expect((await from('https://app.example.com')).status).toBe(200)

    // The 403 is counted on the key as refused by its Origin rule, in the API and the usage view.
    await rpc.usage.flush()
    type Point = { requests: number; refusedOrigin: number; refusedSecret: number }
    const usage = await page.evaluate<{ daily: Point[]; hourly: Point[] }>("fetch('/api/usage', { credentials: 'same-origin' }).then((r) => r.json())")
    const total = (points: Point[], field: keyof Point) => points.reduce((n, p) => n + p[field], 0)
    expect([total(usage.hourly, 'requests'), total(usage.hourly, 'refusedOrigin'), total(usage.hourly, 'refusedSecret')]).toEqual([2, 1, 0])
    expect(usage.daily.at(-1)).toMatchObject({ requests: 2, refusedOrigin: 1 })
    await page.getByRole('link', { name: 'Usage' }).click()
    const dayCells = page.getByRole('table', { name: 'Requests per day (last 30 days): numbers' }).getByRole('row', { name: today.slice(5) }).getByRole('cell')
    await expect.poll(() => dayCells.first().textContent()).toBe('2')
    expect(await dayCells.last().textContent()).toBe('1 (Origin 1)')
    expect(await page.getByText('2 calls, 1 refused').count()).toBe(2)
    await shot(page, '05b-usage-refused')

    await page.getByRole('link', { name: 'Plan' }).click()
    await page.getByRole('button', { name: 'Upgrade to Growth' }).click()
    await expect.poll(() => status().textContent()).toContain('Upgrade requested')
    expect((await listUpgradeRequests(db, { open: true })).map((r) => [r.email, r.plan])).toEqual([['dev@example.com', 'growth']])
    await shot(page, '06-plan')

    // Require a secret, then rotate key and secret together (after a leak): the old secret stops working.
    await page.getByRole('link', { name: 'Keys' }).click()
    await page.getByRole('link', { name: `Settings of ${name}` }).click()
    await page.getByRole('button', { name: 'Require secret' }).click()
    const oldSecret = await page.getByLabel('Key secret', { exact: true }).inputValue()
    await page.goto(`${app.base}/#/keys`)
    await page.getByRole('link', { name: `Settings of ${name}` }).click()
    await page.getByRole('group', { name: 'When rotating, the secret' }).waitFor()
    await shot(page, '06b-rotate-choice')
    await page.getByLabel('Rotate it too: a new secret, shown once (after a leak)').check()
    await page.getByRole('button', { name: 'Rotate' }).click()
    await page.getByRole('heading', { name: 'Key rotated' }).waitFor()
    const rotatedEndpoint = await page.getByLabel(`HTTP endpoint (${network})`, { exact: true }).inputValue()
    const newSecret = await page.getByLabel('Key secret', { exact: true }).inputValue()
    expect(newSecret).not.toBe(oldSecret)
    await shot(page, '06c-rotated')
    await rpc.auth.refresh()
    const withSecret = (secret: string) =>
      fetch(rotatedEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://app.example.com', authorization: `Basic ${Buffer.from(`:${secret}`).toString('base64')}` },
        body: call,
      })
    expect((await withSecret(newSecret)).status).toBe(200)
    expect((await withSecret(oldSecret)).status).not.toBe(200)
    expect((await from('https://app.example.com')).status).toBe(401)

    // Forgot the password: the emailed link sets a new one and signs in.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('button', { name: 'Forgot your password?' }).click()
    await page.getByLabel('Email').fill('dev@example.com')
    const before = app.mail.received.length
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await page.getByRole('heading', { name: 'Check your email' }).waitFor()
    await page.goto(await mailedLink('dev@example.com', before))
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor()
    await page.getByLabel('New password').fill('aaaaaaaaaaaa')
    await page.getByRole('button', { name: 'Set password and sign in' }).click()
    await expect.poll(() => status().textContent()).toBe('password: do not repeat one character')
    await shot(page, '06d-reset-password')
    await page.getByLabel('New password').fill('a new long password')
    await page.getByRole('button', { name: 'Set password and sign in' }).click()
    await page.getByRole('heading', { name: 'API keys' }).waitFor()
    expect(await status().textContent()).toBe('Password changed: you are signed in, and signed out everywhere else')

    await page.getByRole('link', { name: `Settings of ${name}` }).click()
    await page.getByRole('button', { name: 'Revoke' }).click()
    await expect.poll(() => status().textContent()).toBe(`Key "${name}" revoked`)
    await shot(page, '07-revoked')
    await rpc.auth.refresh()
    const revoked = await withSecret(newSecret)
    expect(revoked.status).toBe(401)
    expect(((await revoked.json()) as { error: { message: string } }).error.message).toBe('invalid project id')
  })

  test('behavior: a first visit has no console error; a notice lines up with the card under it; "Check your email" once, the spam hint only when emails are sent; the Keys page has no stray text', async () => {
    // Note: a first visit, signed out: the persistent profile's session is set aside and put back after.
    const signedIn = await context.cookies()
    onTestFinished(async () => {
      await context.clearCookies()
      await context.addCookies(signedIn)
    })
    await context.clearCookies()
    const visit = await context.newPage()
    const consoleErrors: string[] = []
    visit.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text())
    })
    visit.on('pageerror', (error) => consoleErrors.push(error.message))
    try {
      await visit.goto(app.base)
      await visit.getByRole('heading', { name: 'Sign in to your dashboard' }).waitFor()
      await visit.waitForLoadState('networkidle')
      expect(consoleErrors).toEqual([])

      await visit.getByRole('button', { name: 'Create an account' }).click()
      await visit.getByLabel('Email').fill('tidy@example.com')
      await visit.getByLabel('Password').fill('a long password')
      const seen = app.mail.received.length
      await visit.getByRole('button', { name: 'Sign up' }).click()
      await visit.getByRole('heading', { name: 'Check your email' }).waitFor()
      await expect.poll(() => visit.getByRole('status').textContent()).toBe('Email sent')
      const edges = await visit.evaluate<{ notice: number; card: number }>(
        "(() => { const s = document.getElementById('status'); const c = document.querySelector('main .card'); return { notice: s.getBoundingClientRect().left + parseFloat(getComputedStyle(s).paddingLeft), card: c.getBoundingClientRect().left } })()",
      )
      expect(Math.abs(edges.notice - edges.card), JSON.stringify(edges)).toBeLessThan(2)
      const checkText = await visit.locator('main').innerText()
      expect(checkText.match(/check your email/gi)).toHaveLength(1)
      expect(checkText).toContain('We sent a link to tidy@example.com')
      expect(checkText).toContain('Look in your spam folder')
      await shot(visit, '12-check-email')

      await visit.goto(await mailedLink('tidy@example.com', seen))
      await visit.getByRole('heading', { name: 'API keys' }).waitFor()
      const keysText = await visit.locator('main').innerText()
      expect(keysText).not.toMatch(/\b(null|undefined|NaN)\b|\[object /)
      const lines = keysText.split('\n').map((line) => line.trim()).filter((line) => line !== '')
      expect(lines.slice(0, 4)).toEqual(['API keys', 'Signed in as tidy@example.com · plan core', 'New key', 'Key name'])
      await shot(visit, '13-keys-text')
    } finally {
      await visit.close()
    }

    // Emails written to the log (no SMTP_URL): no spam folder to look in.
    const logger = createLogger({ level: 'fatal', name: 'dashboard-test' })
    const logged = await startTestDashboard(db, { rpcUrl: rpcBase, networks: [network], mailer: createMailer({ logger }, { from: 'dashboard <no-reply@example.com>' }) })
    await context.clearCookies()
    const logPage = await context.newPage()
    try {
      await logPage.goto(logged.base)
      await logPage.getByRole('button', { name: 'Create an account' }).click()
      await logPage.getByLabel('Email').fill('logged@example.com')
      await logPage.getByLabel('Password').fill('a long password')
      await logPage.getByRole('button', { name: 'Sign up' }).click()
      await logPage.getByRole('heading', { name: 'Check your email' }).waitFor()
      const text = await logPage.locator('main').innerText()
      expect(text).not.toContain('spam')
      expect(text).toContain('This server writes its emails to its log instead of sending them')
      await shot(logPage, '14-check-email-log')
    } finally {
      await logPage.close()
      await logged.close()
    }
  })

  test('behavior: usable at phone width: nothing wider than the screen, real buttons reachable', async () => {
    const small = await context.newPage()
    await small.setViewportSize({ width: 390, height: 844 })
    try {
      for (const [route, heading, file] of [
        ['#/keys', 'API keys', '08-phone-keys'],
        ['#/usage', 'Usage', '09-phone-usage'],
        ['#/plan', 'Plan', '10-phone-plan'],
        ['#/account', 'Account', '10b-phone-account'],
        [`#/reset/${'x'.repeat(43)}`, 'Choose a new password', '10c-phone-reset'],
      ] as const) {
        await small.goto(`${app.base}/${route}`)
        await small.getByRole('heading', { name: heading, exact: true }).waitFor()
        expect(await small.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
        // Nothing cut off inside a scrolling region either (the usage numbers' last columns were).
        const clipped = await small.evaluate<string[]>("[...document.querySelectorAll('.table-wrap')].filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.getAttribute('aria-label'))")
        expect(clipped, route).toEqual([])
        await small.screenshot({ path: join(screenshotsDir, `${file}.png`), fullPage: true })
      }
      // Every field has a label; every button has a name.
      await small.goto(`${app.base}/#/keys`)
      await small.getByRole('heading', { name: 'API keys', exact: true }).waitFor()
      // Note: page scripts as strings: the tests are type-checked without the DOM library.
      const unlabelled = await small.evaluate<number>(
        "[...document.querySelectorAll('input, select, textarea')].filter((el) => el.labels.length === 0 && !el.closest('label')).length",
      )
      expect(unlabelled).toBe(0)
      // Keyboard only: type a name, Enter submits the form.
      await small.getByLabel('Key name').focus()
      await small.keyboard.type('from the keyboard')
      await small.keyboard.press('Enter')
      await small.getByRole('heading', { name: 'Your new key "from the keyboard"' }).waitFor()
      expect(await small.evaluate<boolean>('document.activeElement.readOnly')).toBe(true)
      await small.screenshot({ path: join(screenshotsDir, '11-phone-key-created.png'), fullPage: true })
    } finally {
      await small.close()
    }
  })
})
