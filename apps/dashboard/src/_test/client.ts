import { Writable } from 'node:stream'
import { createLogger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { createMailer } from '../mail/mailer.js'
import { createDashboardServer, type DashboardOptions, type DashboardServer } from '../server.js'
import { linkToken, startTestMailServer, type TestMailServer } from './mail.js'

// Test-only: a real dashboard server on loopback with a real SMTP server beside it, its log
// lines kept, and a cookie-keeping API client.

export type TestDashboard = {
  dashboard: DashboardServer
  base: string
  mail: TestMailServer
  /** Every log line (JSON), from level info. */
  logs: string[]
  close(): Promise<void>
}

/** Starts the dashboard on 127.0.0.1:0 over `db`, sending email to an in-process SMTP server; networks default to mainnet. */
export async function startTestDashboard(db: Db, options: Partial<DashboardOptions> = {}): Promise<TestDashboard> {
  const logs: string[] = []
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''))
      done()
    },
  })
  const logger = createLogger({ level: 'info', name: 'dashboard-test', destination })
  const mail = await startTestMailServer()
  let base = ''
  const dashboard = createDashboardServer(
    { db, logger },
    {
      signup: 'open',
      rpcUrl: 'http://127.0.0.1:8545',
      networks: ['mainnet'],
      get publicUrl() {
        return base
      },
      mailer: createMailer({ logger }, { smtpUrl: mail.url, from: 'dashboard <no-reply@example.com>' }),
      ...options,
    },
  )
  const { port } = await dashboard.listen(0, '127.0.0.1')
  base = `http://127.0.0.1:${port}`
  return {
    dashboard,
    base,
    mail,
    logs,
    close: async () => {
      await dashboard.close()
      await mail.close()
    },
  }
}

export type ApiAnswer = { status: number; body: Record<string, unknown>; headers: Headers }

/** A signed-in (or not) API user: keeps the session cookie and sends the CSRF token like the UI does. */
export type ApiUser = {
  cookie: string
  csrf: string
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer>
}

/** Calls the API with raw control over cookie and headers. */
export async function callApi(base: string, method: string, path: string, { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {}): Promise<ApiAnswer> {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), headers: res.headers }
}

/** The user of a sign-in-like answer (sign-in, verify, reset): its cookie and CSRF token. */
export function userOf(base: string, answer: ApiAnswer): ApiUser {
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] as string
  const user: ApiUser = {
    cookie,
    csrf: answer.body.csrfToken as string,
    call: (method, path, body, headers = {}) => callApi(base, method, path, { body, headers: { cookie: user.cookie, 'x-csrf-token': user.csrf, ...headers } }),
  }
  return user
}

/** Signs in; throws unless 200. */
export async function signIn(app: TestDashboard, email: string, password = 'correct horse battery'): Promise<ApiUser> {
  const answer = await callApi(app.base, 'POST', '/signin', { body: { email, password } })
  if (answer.status !== 200) throw new Error(`sign-in failed: ${answer.status} ${JSON.stringify(answer.body)}`)
  return userOf(app.base, answer)
}

/** Signs up and opens the emailed verification link: a verified, signed-in user. */
export async function signUp(app: TestDashboard, email: string, password = 'correct horse battery'): Promise<ApiUser> {
  const seen = app.mail.received.length
  const answer = await callApi(app.base, 'POST', '/signup', { body: { email, password } })
  if (answer.status !== 202) throw new Error(`sign-up failed: ${answer.status} ${JSON.stringify(answer.body)}`)
  const mail = await app.mail.next(email.toLowerCase(), seen)
  const verified = await callApi(app.base, 'POST', '/verify', { body: { token: linkToken(mail, 'verify') } })
  if (verified.status !== 200) throw new Error(`verify failed: ${verified.status} ${JSON.stringify(verified.body)}`)
  return userOf(app.base, verified)
}
