import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createDbKeyStore } from '@uncle-rpc/accounts'
import { listen } from '@uncle-rpc/process'
import type { FastPath } from '@uncle-rpc/wire'
import { type Auth, createAuth } from './access/auth.js'
import type { RateLimiter } from './access/rateLimit.js'
import type { UsageRecorder } from './access/usage.js'
import { createNetworkResolver } from './admission/network.js'
import { closeRpcServer } from './composition/closeServer.js'
import { composeAnswers } from './composition/composeAnswers.js'
import { composeMethods } from './composition/composeMethods.js'
import { createHttpServer, routeRequests } from './composition/httpServer.js'
import type { RpcServerDeps, RpcServerOptions } from './composition/serverOptions.js'
import type { Partner } from './pipeline/partner.js'
import { createEventLoopLag, defaultListenBacklog, defaultMaxEventLoopLagMs } from './protection/overload.js'
import { createApp, finishApp } from './readiness/app.js'
import { createReadiness, type Readiness } from './readiness/readiness.js'
import type { AnswerCache } from './reads/cache.js'
import type { HeadTracker } from './reads/heads.js'
import { defaultLimits, type RpcLimits } from './transport/limits.js'
import { attachWebSocket } from './transport/ws.js'


export type RpcServer = {
  server: Server
  cache: AnswerCache
  auth: Auth
  heads: HeadTracker
  usage: UsageRecorder
  limiter: RateLimiter | undefined
  /** The readiness checks (public /ready shows what is degraded; the admin port shows everything). */
  readiness: Readiness
  /** The HTTP fast path beneath node:http; undefined when off. */
  fastPath: FastPath | undefined
  /** WebSocket messages read beneath ws (wsFrames.ts of @uncle-rpc/wire) since start. */
  wsPlainMessages: () => number
  /** The partner of each network that names one. */
  partners: ReadonlyMap<string, Partner>
  /** Loads keys and heads, then listens; resolves with the bound address. */
  listen(port: number, host: string): Promise<AddressInfo>
  /**
   * Stops accepting, closes WebSockets, answers requests in flight with Connection: close, closes
   * idle keep-alive connections after 500 ms (busy ones are cut after 5 s), flushes key usage,
   * closes Redis. Does not close `db`.
   */
  close(): Promise<void>
}

/**
 * Composes the RPC service on one node:http server: the JSON-RPC POST endpoints answered by a
 * plain listener (http.ts), everything else by the Express app, WebSockets on the upgrade event
 * (ws.ts). The parts are built in composition/: the methods and their reads, the answers around
 * them, the routing of requests, and the close.
 */
export function createRpcServer(deps: RpcServerDeps, options: RpcServerOptions): RpcServer {
  const { db, logger, metrics } = deps
  const limits: RpcLimits = { ...defaultLimits, ...options.limits }
  const resolver = createNetworkResolver(options.networks)
  const { cache, numberCache, heads, reorgWatch, served, handler } = composeMethods(deps, options, limits)
  const auth = createAuth(
    { store: deps.keyStore ?? createDbKeyStore(db), logger },
    { lookupTimeoutMs: options.keyLookupTimeoutMs, ...options.auth },
  )
  const { partners, limiter, usage, answer, answerWs } = composeAnswers(deps, options, limits, { handler, served })

  const reads = deps.reads
  const replicas = reads?.states === undefined ? undefined : () => reads.states?.() ?? []
  const readiness = createReadiness({ heads, limiter, partners, replicas, logger })
  const app = createApp({ readiness })
  const server = createHttpServer(limits)
  const lag = createEventLoopLag({ maxLagMs: options.maxEventLoopLagMs ?? defaultMaxEventLoopLagMs })
  const ws = attachWebSocket({ resolver, auth, usage, answer: answerWs, limits, logger }, server)
  metrics?.watch({
    partners,
    wsConnections: ws.connections,
    cacheEntries: () => ({ byHash: cache.size, byNumber: numberCache.size }),
    redisShared: limiter && (() => limiter.shared),
    replicas,
    pool: () => ({ total: db.$client.totalCount, idle: db.$client.idleCount, waiting: db.$client.waitingCount }),
  })
  finishApp(app, logger)
  const shutdown = { closing: false }
  const closing = () => shutdown.closing
  const { fast, unanswered } = routeRequests(
    server,
    { resolver, auth, usage, answer, limits, logger, closing, overloaded: lag.behind, onShed: metrics && (() => metrics.shed('http')) },
    app,
    options,
  )
  const close = () =>
    closeRpcServer({ heads, reorgWatch, lag, shutdown, unanswered, ws, server, fast, auth, uncleFilter: deps.uncleFilter, usage, limiter })

  return {
    server,
    cache,
    auth,
    heads,
    usage,
    limiter,
    readiness,
    fastPath: fast,
    wsPlainMessages: ws.plainMessages,
    partners,
    async listen(port, host) {
      // Note: not current within its wait (a slow or down database): misses are read until it is.
      await deps.uncleFilter?.start()
      await auth.refresh()
      if (limiter !== undefined && !(await limiter.ready(2000)))
        logger.error({ msg: 'rate limiting: Redis not reachable at start; per-process limits until it is' })
      // Note: a failed first read is not fatal: the tracker retries and /ready reports it.
      await heads.refresh().catch((error: unknown) =>
        logger.warn({ msg: 'reading latest indexed blocks failed', error: (error as Error).message }),
      )
      await reorgWatch.check()
      try {
        return await listen(server, { port, host, backlog: options.listenBacklog ?? defaultListenBacklog })
      } catch (error) {
        // Note: what started above (timers, the filter's connection, Redis) would keep the process running.
        await close()
        throw error
      }
    },
    close,
  }
}
