import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from '@uncle-rpc/config'
import { addUsage, type Db } from '@uncle-rpc/db'
import { createJsonRpcHandler } from '@uncle-rpc/jsonrpc'
import { createAnswer } from './answer.js'
import { createApp, finishApp } from './app.js'
import { type Auth, type CreateAuthParameters, createAuth, type KeyStore } from './auth.js'
import { type AnswerCache, createAnswerCache, defaultCacheEntries } from './cache.js'
import { createAnswerWithFailover } from './failover.js'
import { createHeadTracker, type HeadTracker } from './heads.js'
import { createHttpHandler } from './http.js'
import { defaultLimits, type RpcLimits } from './limits.js'
import type { BlockKnown, FindUncle, MethodContext } from './methods/eth_getUncleByBlockHashAndIndex.js'
import type { RpcMetrics } from './metrics.js'
import { createMethods } from './methods/index.js'
import { createNetworkResolver, type ServedNetwork } from './network.js'
import { type CreatePartnerParameters, createPartner, type Partner } from './partner.js'
import { type CreateRateLimiterParameters, createRateLimiter, type RateLimiter } from './rateLimit.js'
import { createReadiness } from './readiness.js'
import { createBlockKnown, createDbKeyStore, createFindUncle, primaryReads, type ReadSource } from './store.js'
import { createUsageRecorder, type UsageRecorder, type UsageStore } from './usage.js'
import { attachWebSocket } from './ws.js'

export type RpcServerDeps = {
  db: Db
  logger: Logger
  /** Default: the api_keys table of `db`. */
  keyStore?: KeyStore | undefined
  /** Where uncles and blocks are read (read replicas). Default: `db`. */
  reads?: ReadSource | undefined
  /** Default: getUncle on `reads`. */
  findUncle?: FindUncle | undefined
  /** Default: blockKnown on `reads`. */
  blockKnown?: BlockKnown | undefined
  /** Default: addUsage on `db` (usage_daily). */
  usageStore?: UsageStore | undefined
  /** Prometheus metrics (metrics.ts); absent = off. */
  metrics?: RpcMetrics | undefined
}

export type RpcServerOptions = {
  networks: readonly ServedNetwork[]
  limits?: Partial<RpcLimits> | undefined
  /** Answers kept in memory (~1.4 KB each); 0 turns the cache off. Default 10,000. */
  cacheEntries?: number | undefined
  /** How often the latest indexed block of each network is read. Default 2 s. */
  headsIntervalMs?: number | undefined
  auth?: CreateAuthParameters | undefined
  /** Shared per-key limits in Redis; omitted = no rate limiting. */
  rateLimits?: CreateRateLimiterParameters | undefined
  /** A database read with no read completing for this long (4× in all) counts as "index unavailable" (createDeadline). Default 250 ms. */
  dbDeadlineMs?: number | undefined
  /** Timeout and circuit breaker of each network's partner (networks[].partnerUrl). */
  partner?: Omit<CreatePartnerParameters, 'url' | 'name'> | undefined
  /** How often usage is written to usage_daily. Default 5 s. */
  usageFlushMs?: number | undefined
}

export type RpcServer = {
  server: Server
  cache: AnswerCache
  auth: Auth
  heads: HeadTracker
  usage: UsageRecorder
  limiter: RateLimiter | undefined
  /** The partner of each network that names one. */
  partners: ReadonlyMap<string, Partner>
  /** Loads keys and heads, then listens; resolves with the bound address. */
  listen(port: number, host: string): Promise<AddressInfo>
  /** Stops accepting, closes WebSockets and idle connections (busy ones after 5 s), flushes key usage, closes Redis. Does not close `db`. */
  close(): Promise<void>
}

/**
 * Composes the RPC service on one node:http server: the JSON-RPC POST endpoints answered by a
 * plain listener (http.ts), everything else by the Express app, WebSockets by express-ws (ws.ts).
 */
export function createRpcServer(deps: RpcServerDeps, options: RpcServerOptions): RpcServer {
  const { db, logger } = deps
  const limits: RpcLimits = { ...defaultLimits, ...options.limits }
  const networkNames = options.networks.map((n) => n.name)
  const resolver = createNetworkResolver(options.networks)
  const cache = createAnswerCache({ maxEntries: options.cacheEntries ?? defaultCacheEntries })
  const heads = createHeadTracker({ db, logger }, { networks: networkNames, intervalMs: options.headsIntervalMs })
  const auth = createAuth({ store: deps.keyStore ?? createDbKeyStore(db), logger }, options.auth)
  let localFailures = 0
  let lastFailureLog = 0
  // Note: one line per 10 s at most while the database fails, not one per request.
  const onLocalFailure = (error: unknown) => {
    localFailures++
    const now = Date.now()
    if (now - lastFailureLog < 10_000) return
    logger.warn({ msg: 'database read failed or missed its deadline', error: (error as Error).message, failures_since_last_line: localFailures })
    lastFailureLog = now
    localFailures = 0
  }
  const methods = createMethods({
    findUncle: deps.findUncle ?? createFindUncle(deps.reads ?? primaryReads(db)),
    blockKnown: deps.blockKnown ?? createBlockKnown(deps.reads ?? primaryReads(db)),
    cache: deps.metrics?.countLookups(cache) ?? cache,
    latest: heads.latest,
    deadlineMs: options.dbDeadlineMs,
    onLocalFailure,
  })
  const handler = createJsonRpcHandler<MethodContext>({
    methods,
    maxBatchSize: limits.maxBatchSize,
    onInternalError: (error, correlationId, context) =>
      logger.error({
        msg: 'internal error',
        correlation_id: correlationId,
        network: context.network.name,
        error: error instanceof Error ? error.message : String(error),
      }),
  })

  const partners = new Map<string, Partner>()
  for (const network of options.networks)
    if (network.partnerUrl !== undefined) partners.set(network.name, createPartner({ logger }, { ...options.partner, url: network.partnerUrl, name: network.name }))
  const limiter = options.rateLimits === undefined ? undefined : createRateLimiter({ logger }, options.rateLimits)
  const usage = createUsageRecorder(
    { store: deps.usageStore ?? ((deltas) => addUsage(db, deltas)), logger },
    { flushIntervalMs: options.usageFlushMs },
  )
  const answerDeps = {
    handler,
    answerWithFailover: createAnswerWithFailover({ handler }),
    partnerFor: (network: ServedNetwork) => partners.get(network.name),
    limiter,
    usage,
    limits,
  }
  const { metrics } = deps
  const answer = createAnswer({ ...answerDeps, metrics: metrics && { metrics, transport: 'http' } })
  const answerWs = metrics === undefined ? answer : createAnswer({ ...answerDeps, metrics: { metrics, transport: 'ws' } })

  const reads = deps.reads
  const replicas = reads?.states === undefined ? undefined : () => reads.states?.() ?? []
  const readiness = createReadiness({ heads, limiter, partners, replicas, logger })
  const app = createApp({ readiness })
  const server = createServer()
  const ws = attachWebSocket({ resolver, auth, answer: answerWs, limits, logger }, app, server)
  metrics?.watch({ partners, wsConnections: ws.connections, cacheEntries: () => cache.size })
  finishApp(app, logger)
  const rpc = createHttpHandler({ resolver, auth, answer, limits, logger })
  server.on('request', (req, res) => {
    if (!rpc(req, res)) app(req, res)
  })

  return {
    server,
    cache,
    auth,
    heads,
    usage,
    limiter,
    partners,
    async listen(port, host) {
      await auth.refresh()
      if (limiter !== undefined && !(await limiter.ready(2000)))
        logger.error({ msg: 'rate limiting: Redis not reachable at start; per-process limits until it is' })
      // Note: a failed first read is not fatal: the tracker retries and /ready reports it.
      await heads.refresh().catch((error: unknown) =>
        logger.warn({ msg: 'reading latest indexed blocks failed', error: (error as Error).message }),
      )
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => {
          server.off('error', reject)
          resolve()
        })
      })
      return server.address() as AddressInfo
    },
    async close() {
      heads.stop()
      await ws.close()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
        // Note: requests still running get 5 s to finish; then their connections are cut.
        setTimeout(() => server.closeAllConnections(), 5000).unref()
      })
      await auth.stop()
      await usage.stop()
      await limiter?.close()
    },
  }
}
