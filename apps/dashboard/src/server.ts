import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Logger } from '@uncle-rpc/config'
import { type Db, deleteExpiredSessions } from '@uncle-rpc/db'
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express'
import { accountRoutes } from './api/account.js'
import type { ApiDeps, SignupMode } from './api/context.js'
import { keyRoutes } from './api/keys.js'
import { planRoutes } from './api/plan.js'
import { usageRoutes } from './api/usage.js'
import { createSessions, type SecureCookies } from './auth/sessions.js'
import { type CreateSignInThrottleParameters, createSignInThrottle } from './auth/throttle.js'
import { ApiError } from './errors.js'

/** The hand-written UI (HTML, CSS, JS modules), served as files: no build step, no CDN. */
export const staticDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'static')

export type DashboardOptions = {
  signup: SignupMode
  /** Public base URL of the RPC service, for the endpoints shown. */
  rpcUrl: string
  /** Default `auto`: Secure when the request came over https. */
  secureCookies?: SecureCookies | undefined
  throttle?: CreateSignInThrottleParameters | undefined
}

export type DashboardServer = {
  app: Express
  server: Server
  listen(port: number, host: string): Promise<AddressInfo>
  close(): Promise<void>
}

// Note: the UI loads only its own files; inline scripts and styles, frames and other origins are refused.
const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'content-security-policy':
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
  })
  next()
}

/** The developer dashboard: the JSON API under /api (README.md lists it) and the UI from static/. */
export function createDashboardServer({ db, logger }: { db: Db; logger: Logger }, options: DashboardOptions): DashboardServer {
  const sessions = createSessions({ db }, { secure: options.secureCookies ?? 'auto' })
  const deps: ApiDeps = { db, logger, sessions, throttle: createSignInThrottle({ db }, options.throttle), signup: options.signup, rpcUrl: options.rpcUrl }
  const app = express()
  app.disable('x-powered-by')
  // Note: behind a reverse proxy on the same machine, X-Forwarded-Proto/For give https and the client address.
  app.set('trust proxy', 'loopback')
  app.use(securityHeaders)

  const api = express.Router()
  api.use((_req, res, next) => {
    res.set('cache-control', 'no-store')
    next()
  })
  api.use(express.json({ limit: '64kb' }))
  api.get('/config', (_req, res) => {
    res.json({ signup: options.signup, rpcUrl: options.rpcUrl })
  })
  api.use('/', accountRoutes(deps))
  api.use('/keys', keyRoutes(deps))
  api.use('/usage', usageRoutes(deps))
  api.use('/plan', planRoutes(deps))
  api.use((_req, _res) => {
    throw new ApiError(404, 'no such API route')
  })
  app.use('/api', api)
  app.use(express.static(staticDir, { index: 'index.html', maxAge: 0, setHeaders: (res) => res.set('cache-control', 'no-cache') }))

  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    if (error instanceof ApiError) {
      if (error.retryAfter !== undefined) res.set('retry-after', String(error.retryAfter))
      res.status(error.status).json({ error: error.shortMessage })
      return
    }
    // body-parser: bad JSON (400) or too large (413).
    const status = (error as { status?: unknown })?.status
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res.status(status).json({ error: status === 413 ? 'request too large' : 'bad request: send valid JSON' })
      return
    }
    const correlationId = randomUUID().slice(0, 8)
    logger.error({ msg: 'dashboard request failed', correlation_id: correlationId, error: (error as Error)?.message })
    res.status(500).json({ error: 'internal error', correlationId })
  }
  app.use(onError)

  const server = createServer(app)
  const sweep = setInterval(() => {
    deleteExpiredSessions(db).catch((error: unknown) => logger.warn({ msg: 'deleting expired sessions failed', error: (error as Error).message }))
    deps.throttle.prune().catch((error: unknown) => logger.warn({ msg: 'pruning sign-in failures failed', error: (error as Error).message }))
  }, 3_600_000)
  sweep.unref()
  return {
    app,
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => {
          server.off('error', reject)
          resolve(server.address() as AddressInfo)
        })
      }),
    close: () =>
      new Promise((resolve) => {
        clearInterval(sweep)
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
