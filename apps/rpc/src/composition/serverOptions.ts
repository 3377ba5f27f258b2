import type { Logger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import type { CreateAuthParameters, KeyStore } from '../access/auth.js'
import type { CreateRateLimiterParameters } from '../access/rateLimit.js'
import type { UsageStore } from '../access/usage.js'
import type { BlockKnown, FindUncle, ServedNetwork } from '../methods/context.js'
import type { RpcMetrics } from '../metrics.js'
import type { CreatePartnerParameters } from '../pipeline/partner.js'
import type { UncleFilter } from '../reads/uncleFilter.js'
import type { ReadSource } from '../reads/store.js'
import type { RpcLimits } from '../transport/limits.js'

// What createRpcServer (server.ts) is given: its dependencies, and its options with their defaults.

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
  /** Answers kept in memory per cache, by hash and by number (~1.4 KB each); 0 turns both off. Default 10,000. */
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
