import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Logger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { deleteExpiredSessions, pruneAccountTokens, type RequestLimitPolicy } from '@uncle-rpc/db/accounts'
import { listen } from '@uncle-rpc/process'
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express'
import { accountRoutes } from './api/account.js'
import type { ApiDeps, SignupMode } from './api/context.js'
import { keyRoutes } from './api/keys.js'
import { planRoutes } from './api/plan.js'
import { recoveryRoutes } from './api/recovery.js'
import { usageRoutes } from './api/usage.js'
import { createEmailLinks, type EmailLinks } from './auth/emailLinks.js'
import { createRequestLimits, type LimitName } from './auth/limits.js'
import { createSessions, defaultIdleMs, type SecureCookies } from './auth/sessions.js'
import { type CreateSignInThrottleParameters, createSignInThrottle } from './auth/throttle.js'
import type { TrustProxy } from './args.js'
import { errorForLog } from './errorForLog.js'
import { ApiError } from './errors.js'
import type { Mailer } from './mail/mailer.js'

/** The hand-written UI (HTML, CSS, JS modules), served as files: no build step, no CDN. */
const staticDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'static')

export type DashboardOptions = {
  signup: SignupMode
  /** Public base URL of the RPC service, for the endpoints shown. */
  rpcUrl: string
  /** The networks the RPC service serves (from the same networks config). */
  networks: readonly string[]
  /** Each network's own address from the config (`publicUrl`), used instead of `rpcUrl` for its endpoints. */
  networkUrls?: ReadonlyMap<string, string> | undefined
  /** The dashboard's own public base URL, for the links in emails (never taken from a request's Host). */
  publicUrl: string
  mailer: Mailer
  /** Whose X-Forwarded-For/-Proto is believed. Default `false`: nobody's. */
  trustProxy?: TrustProxy | undefined
  /** Most live keys per account. Default 100. */
  maxKeys?: number | undefined
  /** Default `auto`: Secure when the request came over https. */
  secureCookies?: SecureCookies | undefined
  /** A session ends after this long without a request. Default 12 h. */
  idleMs?: number | undefined
  throttle?: CreateSignInThrottleParameters | undefined
  limits?: Partial<Record<LimitName, RequestLimitPolicy>> | undefined
}

const defaultMaxKeys = 100

export type DashboardServer = {
  app: Express
  server: Server
  /** The emails being sent (tests wait for them). */
  links: EmailLinks
  listen(port: number, host: string): Promise<AddressInfo>
  close(): Promise<void>
}

// Note: the UI loads only its own files; inline scripts and styles, frames and other origins are refused.
const securityHeaders: RequestHandler = (req, res, next) => {
  res.set({
    'content-security-policy':
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
  })
  // Note: only over https (req.secure believes X-Forwarded-Proto from a trusted proxy only): HSTS over http is ignored and would mislead.
  if (req.secure) res.set('strict-transport-security', 'max-age=31536000')
  next()
}

/** The developer dashboard: the JSON API under /api (README.md lists it) and the UI from static/. */
export function createDashboardServer({ db, logger }: { db: Db; logger: Logger }, options: DashboardOptions): DashboardServer {
  const idleMs = options.idleMs ?? defaultIdleMs
  const sessions = createSessions({ db }, { secure: options.secureCookies ?? 'auto', idleMs })
  const links = createEmailLinks({ db, mailer: options.mailer, logger }, { publicUrl: () => options.publicUrl.replace(/\/+$/, '') })
  const deps: ApiDeps = {
    db,
    logger,
    sessions,
    throttle: createSignInThrottle({ db }, options.throttle),
    limits: createRequestLimits({ db }, options.limits),
    links,
    signup: options.signup,
    rpcUrl: options.rpcUrl,
    networks: options.networks,
    networkUrls: options.networkUrls ?? new Map(),
    maxKeys: options.maxKeys ?? defaultMaxKeys,
  }
  const app = express()
  app.disable('x-powered-by')
  // Note: X-Forwarded-For/-Proto are believed only from the proxies named by --trust-proxy (none by default).
  app.set('trust proxy', options.trustProxy ?? false)
  app.use(securityHeaders)

  const api = express.Router()
  api.use((_req, res, next) => {
    res.set('cache-control', 'no-store')
    next()
  })
  api.use(express.json({ limit: '64kb' }))
  api.get('/config', (_req, res) => {
    // Note: `email` says where emails go (`log`: written to the server's log, not sent), so the page gives the right hint.
    res.json({ signup: options.signup, rpcUrl: options.rpcUrl, email: options.mailer.mode })
  })
  api.use('/', accountRoutes(deps))
  api.use('/', recoveryRoutes(deps))
  api.use('/keys', keyRoutes(deps))
  api.use('/usage', usageRoutes(deps))
  api.use('/plan', planRoutes(deps))
  api.use((_req, _res) => {
    throw new ApiError(404, 'no such API route')
  })
  app.use('/api', api)
  app.use(express.static(staticDir, { index: 'index.html', maxAge: 0, setHeaders: (res) => res.set('cache-control', 'no-cache') }))
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' })
  })

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
    logger.error({ msg: 'dashboard request failed', correlation_id: correlationId, error: errorForLog(error) })
    res.status(500).json({ error: 'internal error', correlationId })
  }
  app.use(onError)

  const server = createServer(app)
  const sweep = setInterval(() => {
    const failed = (what: string) => (error: unknown) => logger.warn({ msg: `${what} failed`, error: (error as Error).name, code: (error as { code?: unknown }).code })
    deleteExpiredSessions(db, { idleMs }).catch(failed('deleting expired sessions'))
    pruneAccountTokens(db).catch(failed('deleting expired email links'))
    deps.throttle.prune().catch(failed('pruning sign-in failures'))
    deps.limits.prune().catch(failed('pruning request limits'))
  }, 3_600_000)
  sweep.unref()
  return {
    app,
    server,
    links,
    listen: (port, host) => listen(server, { port, host }),
    close: async () => {
      clearInterval(sweep)
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await links.settled()
      options.mailer.close()
    },
  }
}
