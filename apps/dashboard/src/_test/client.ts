import { createLogger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { createDashboardServer, type DashboardOptions, type DashboardServer } from '../server.js'

// Test-only: a real dashboard server on loopback and a cookie-keeping API client.

export type TestDashboard = { dashboard: DashboardServer; base: string }

/** Starts the dashboard on 127.0.0.1:0 over `db`; logs go nowhere below `fatal`. */
export async function startTestDashboard(db: Db, options: Partial<DashboardOptions> = {}): Promise<TestDashboard> {
  const logger = createLogger({ level: 'fatal', name: 'dashboard-test' })
  const dashboard = createDashboardServer({ db, logger }, { signup: 'open', rpcUrl: 'http://127.0.0.1:8545', ...options })
  const { port } = await dashboard.listen(0, '127.0.0.1')
  return { dashboard, base: `http://127.0.0.1:${port}` }
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

/** Signs up (or in, when `signIn`) and returns a user whose calls carry its cookie and CSRF token. */
export async function signUp(base: string, email: string, password = 'correct horse battery', signIn = false): Promise<ApiUser> {
  const answer = await callApi(base, 'POST', signIn ? '/signin' : '/signup', { body: { email, password } })
  if (answer.status !== (signIn ? 200 : 201)) throw new Error(`sign-up failed: ${answer.status} ${JSON.stringify(answer.body)}`)
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] as string
  const user: ApiUser = {
    cookie,
    csrf: answer.body.csrfToken as string,
    call: (method, path, body, headers = {}) => callApi(base, method, path, { body, headers: { cookie: user.cookie, 'x-csrf-token': user.csrf, ...headers } }),
  }
  return user
}
