import { createServer, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, Server as NetServer } from 'node:net'
import type { Logger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { addDailyAndHourlyUsage, admittedOnDay, pruneHourlyUsage } from '@uncle-rpc/db/accounts'
import { blockUncleCountByHash, canonicalBlockUncleCount } from '@uncle-rpc/db/chain'
import { createJsonRpcHandler } from '@uncle-rpc/jsonrpc'
import { listen } from '@uncle-rpc/process'
import { createAnswer } from './pipeline/answer.js'
import { createApp, finishApp } from './readiness/app.js'
import { type Auth, type CreateAuthParameters, createAuth, type KeyStore } from './access/auth.js'
import { type AnswerCache, createAnswerCache, defaultCacheEntries } from './reads/cache.js'
import { createAnswerWithFailover } from './pipeline/answerWithFailover.js'
import { createHeadTracker, type HeadTracker } from './reads/heads.js'
import { createHttpHandler } from './transport/http.js'
import { createAdmission } from './admission/admission.js'
import { attachFastPath, defaultRequestsPerTurn, type FastPath } from '@uncle-rpc/wire'
import { createFastRpc } from './transport/fastRpc.js'
import { defaultLimits, type RpcLimits } from './transport/limits.js'
import type { BlockKnown, FindUncle, MethodContext, ServedNetwork } from './methods/context.js'
import type { RpcMetrics } from './metrics.js'
import { createMethods } from './methods/index.js'
import { countCalls } from './methods/countCalls.js'
import { watchReorgs } from './reads/byNumberCache.js'
import { defaultDeadlineMs } from './methods/eth_getUncleByBlockHashAndIndex.js'
import { createReadGate, readPauseMs } from './protection/readStallGuard.js'
import { createFamilyReads } from './methods/familyReads.js'
import { createNetworkResolver } from './admission/network.js'
import { type CreatePartnerParameters, createPartner, type Partner } from './pipeline/partner.js'
import { type CreateRateLimiterParameters, createRateLimiter, type RateLimiter } from './access/rateLimit.js'
import { createReadiness, type Readiness } from './readiness/readiness.js'
import { createEventLoopLag, defaultListenBacklog, defaultMaxEventLoopLagMs } from './protection/overload.js'
import { createDbKeyStore } from '@uncle-rpc/accounts'
import { createBlockKnown, createFindUncle, primaryReads, type ReadSource } from './reads/store.js'
import { createUsageRecorder, type UsageRecorder, type UsageStore } from './access/usage.js'
import type { UncleFilter } from './reads/uncleFilter.js'
import { attachWebSocket } from './transport/ws.js'

export type RpcServerDeps = {
  db: Db
  logger: Logger
  /** Default: the api_keys table of `db`. */
  keyStore?: KeyStore | undefined
  /** Where uncles and blocks are read (read replicas). Default: `db`. */
  reads?: ReadSource | undefined
  /** Default: createFindUncle on `reads` (getUncles statements, one per pool connection in flight, carrying the lookups queued meanwhile). */
  findUncle?: FindUncle | undefined
  /** Default: blockKnown on `reads`. */
  blockKnown?: BlockKnown | undefined
  /** Default: usage_daily and usage_hourly on `db` (one transaction per flush), hourly rows kept 35 days. */
  usageStore?: UsageStore | undefined
  /** Prometheus metrics (metrics.ts); absent = off. */
  metrics?: RpcMetrics | undefined
  /** Blocks with uncles held in memory: unknown hashes answered null without a read. Started by listen(), stopped by close(). Absent = every miss is read. */
  uncleFilter?: UncleFilter | undefined
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
  /** Uncle statements in flight at once: the pool size (one per connection). Default 10. */
  dbStatements?: number | undefined
  /** Most lookups in one uncle statement. Default 256. */
  dbMaxBatch?: number | undefined
  /** A database read with no read completing for this long (4× in all) counts as "index unavailable" (createDeadline). Default 250 ms. */
  dbDeadlineMs?: number | undefined
  /** Timeout and circuit breaker of each network's partner (networks[].partnerUrl). */
  partner?: Omit<CreatePartnerParameters, 'url' | 'name'> | undefined
  /** How often usage is written to usage_daily and usage_hourly. Default 500 ms (usage.ts: what a crash may lose). */
  usageFlushMs?: number | undefined
  /** Longest wait for a key not in memory; past it 503 + Retry-After (auth.ts). Default 1 s. */
  keyLookupTimeoutMs?: number | undefined
  /** Longest wait for the readiness check's database read (and the heads refresh). Default 1 s. */
  readyTimeoutMs?: number | undefined
  /** New JSON-RPC requests are shed (503, -32005) while the event loop is further behind than this; 0 = never. Default 500 ms. */
  maxEventLoopLagMs?: number | undefined
  /** Connections the kernel may hold for accepting (listen(2) backlog; Linux caps it at net.core.somaxconn). Default 4096. */
  listenBacklog?: number | undefined
  /** JSON-RPC POSTs read strictly are answered beneath node:http (the fast path of @uncle-rpc/wire); false: node:http reads every request. Default true. */
  fastPath?: boolean | undefined
  /** Fast-path requests answered per event-loop turn, the rest in the next turns; 0 = no bound. Default 8. */
  requestsPerTurn?: number | undefined
}

/** A request head longer than this goes to node:http (its own limit is 16 KiB). */
const fastPathMaxHeadBytes = 8192

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
 * plain listener (http.ts), everything else by the Express app, WebSockets on the upgrade event (ws.ts).
 */
export function createRpcServer(deps: RpcServerDeps, options: RpcServerOptions): RpcServer {
  const { db, logger } = deps
  const limits: RpcLimits = { ...defaultLimits, ...options.limits }
  const networkNames = options.networks.map((n) => n.name)
  const resolver = createNetworkResolver(options.networks)
  const cache = createAnswerCache({ maxEntries: options.cacheEntries ?? defaultCacheEntries })
  const deadlineMs = options.dbDeadlineMs ?? defaultDeadlineMs
  // Note: one gate for every read of the methods; a heads read that succeeds (the timer's, or a
  // /ready check's) proves the database answers and ends a pause at once, so the rpc is not
  // ready while its reads still pause, and answers again as soon as it is.
  const readGate = createReadGate({ cooldownMs: readPauseMs(deadlineMs) })
  const heads = createHeadTracker(
    { db, logger },
    {
      networks: networkNames,
      intervalMs: options.headsIntervalMs,
      deadlineMs: options.readyTimeoutMs,
      onRead: () => {
        if (readGate.state !== 'closed') readGate.succeeded()
      },
    },
  )
  const auth = createAuth(
    { store: deps.keyStore ?? createDbKeyStore(db), logger },
    { lookupTimeoutMs: options.keyLookupTimeoutMs, ...options.auth },
  )
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
  const source = deps.reads ?? primaryReads(db)
  // Note: answers by number have a cache of their own, dropped on every reorg (byNumberCache.ts).
  const numberCache = createAnswerCache({ maxEntries: options.cacheEntries ?? defaultCacheEntries })
  const reorgWatch = watchReorgs({ db, logger }, { cache: numberCache, intervalMs: options.headsIntervalMs ?? 2000 })
  const served = createMethods({
    blockByHash: (params) => source.read((reader) => blockUncleCountByHash(reader, params)),
    canonicalBlock: (params) => source.read((reader) => canonicalBlockUncleCount(reader, params)),
    numberCache: deps.metrics?.countLookups(numberCache) ?? numberCache,
    reads: createFamilyReads({ deadlineMs, gate: readGate, onLocalFailure }),
    findUncle: deps.findUncle ?? createFindUncle(deps.reads ?? primaryReads(db), {
        onStatement: deps.metrics?.uncleRead,
        maxStatements: options.dbStatements,
        maxLookupsPerStatement: options.dbMaxBatch,
      }),
    blockKnown: deps.blockKnown ?? createBlockKnown(deps.reads ?? primaryReads(db)),
    cache: deps.metrics?.countLookups(cache) ?? cache,
    latest: heads.latest,
    deadlineMs,
    gate: readGate,
    onLocalFailure,
    absent: deps.uncleFilter?.absent,
  })
  const methods = deps.metrics === undefined ? served : countCalls(served, deps.metrics.methodCalled)
  const handler = createJsonRpcHandler<MethodContext>({
    methods,
    maxBatchSize: limits.maxBatchSize,
    onInternalError: (error, correlationId, context) =>
      logger.error({
        msg: 'internal error',
        correlation_id: correlationId,
        network: context.network.name,
        error,
      }),
  })

  const partners = new Map<string, Partner>()
  for (const network of options.networks)
    if (network.partnerUrl !== undefined) partners.set(network.name, createPartner({ logger }, { ...options.partner, url: network.partnerUrl, name: network.name }))
  const limiter =
    options.rateLimits === undefined
      ? undefined
      : createRateLimiter({ logger, admittedOnDay: (keyId, day) => admittedOnDay(db, { keyId, day }) }, options.rateLimits)
  const usage = createUsageRecorder(
    {
      store: deps.usageStore ?? {
        write: (batch) => addDailyAndHourlyUsage(db, batch),
        prune: async () => void (await pruneHourlyUsage(db, { days: 35 })),
      },
      logger,
    },
    { flushIntervalMs: options.usageFlushMs },
  )
  const answerDeps = {
    handler,
    answerWithFailover: createAnswerWithFailover({ handler, onVerification: deps.metrics?.partnerVerified }),
    partnerFor: (network: ServedNetwork) => partners.get(network.name),
    limiter,
    usage,
    served: new Set(Object.keys(served)),
    maxBatchSize: limits.maxBatchSize,
  }
  const { metrics } = deps
  const answer = createAnswer({ ...answerDeps, metrics: metrics && { metrics, transport: 'http' } })
  const answerWs = metrics === undefined ? answer : createAnswer({ ...answerDeps, metrics: { metrics, transport: 'ws' } })

  const reads = deps.reads
  const replicas = reads?.states === undefined ? undefined : () => reads.states?.() ?? []
  const readiness = createReadiness({ heads, limiter, partners, replicas, logger })
  const app = createApp({ readiness })
  const server = createServer({
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: Math.min(60_000, limits.requestTimeoutMs),
    // Note: node checks these timeouts on this period (default 30 s), so it bounds their precision.
    connectionsCheckingInterval: Math.min(1000, limits.requestTimeoutMs),
  })
  const lag = createEventLoopLag({ maxLagMs: options.maxEventLoopLagMs ?? defaultMaxEventLoopLagMs })
  const ws = attachWebSocket({ resolver, auth, usage, answer: answerWs, limits, logger }, server)
  metrics?.watch({
    partners,
    wsConnections: ws.connections,
    cacheEntries: () => cache.size,
    redisShared: limiter && (() => limiter.shared),
    replicas,
    pool: () => ({ total: db.$client.totalCount, idle: db.$client.idleCount, waiting: db.$client.waitingCount }),
  })
  finishApp(app, logger)
  let closing = false
  const httpDeps = { resolver, auth, usage, answer, limits, logger, closing: () => closing, overloaded: lag.behind, onShed: metrics && (() => metrics.shed('http')) }
  const rpc = createHttpHandler(httpDeps)
  const fast: FastPath | undefined =
    options.fastPath === false
      ? undefined
      : attachFastPath(server, createFastRpc({ admit: createAdmission(httpDeps), answer, logger, closing: () => closing }), {
          maxHeadBytes: fastPathMaxHeadBytes,
          maxHeaders: 64,
          maxBodyBytes: limits.maxBodyBytes,
          requestTimeoutMs: limits.requestTimeoutMs,
          keepAliveTimeoutMs: server.keepAliveTimeout,
          requestsPerTurn: options.requestsPerTurn ?? defaultRequestsPerTurn,
        })
  // Answers of the Express app not yet sent; while closing each one ends its keep-alive connection
  // (Connection: close). The JSON-RPC answers check `closing` as they are written instead (http.ts).
  const unanswered = new Set<ServerResponse>()
  server.on('request', (req, res) => {
    if (closing) res.shouldKeepAlive = false
    if (rpc(req, res)) return
    if (!closing) {
      unanswered.add(res)
      res.once('finish', () => unanswered.delete(res))
      res.once('close', () => unanswered.delete(res))
    }
    app(req, res)
  })

  async function close(): Promise<void> {
    heads.stop()
    reorgWatch.stop()
    lag.stop()
    closing = true
    for (const res of unanswered) if (!res.headersSent) res.shouldKeepAlive = false
    await ws.close()
    await new Promise<void>((resolve) => {
      // Note: net's close, not http's: http's closes idle keep-alive connections at once, racing
      // clients that are sending their next request on them. Here a request arriving in the first
      // 500 ms is answered with Connection: close; connections still idle then are closed.
      NetServer.prototype.close.call(server, () => resolve())
      const idle = setTimeout(() => {
        server.closeIdleConnections()
        fast?.closeIdleConnections()
      }, 500)
      // Requests still running get 5 s to finish; then their connections are cut.
      const cut = setTimeout(() => {
        server.closeAllConnections()
        fast?.closeAllConnections()
      }, 5000)
      idle.unref()
      cut.unref()
    })
    // Note: http's close as well, for its timeout timer (the listening socket is closed already).
    server.close(() => undefined)
    fast?.stop()
    await auth.stop()
    await deps.uncleFilter?.stop()
    await usage.stop()
    await limiter?.close()
  }

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
