import { type DbTimeoutFlags, dbTimeoutFlagNames, dbTimeoutsUsage, integerFlag, parseDbTimeoutFlags, parseFlags, UsageError } from '@uncle-rpc/config'
import { type MetricsListen, metricsUsage } from '@uncle-rpc/metrics'
import { defaultCacheEntries } from './reads/cache.js'
import { defaultLimits, type RpcLimits } from './transport/limits.js'
import { defaultDeadlineMs } from './methods/eth_getUncleByBlockHashAndIndex.js'
import { defaultPartnerCooldownMs, defaultPartnerFailureThreshold, defaultPartnerTimeoutMs } from './pipeline/partner.js'
import { defaultUsageFlushMs } from './access/usage.js'
import { defaultKeyLookupTimeoutMs } from './access/auth.js'
import { defaultMaxLookupsPerStatement } from './reads/store.js'
import { defaultListenBacklog, defaultMaxEventLoopLagMs } from './protection/overload.js'
import { defaultRequestsPerTurn } from '@uncle-rpc/wire'

/** The `uncle-rpc rpc` configuration from its flags. */
export type RpcArgs = {
  config: string | undefined
  port: number
  host: string
  workers: number
  dbPool: number
  /** Uncle statements in flight per connection (1: pg.Pool as it is; above, pg's pipeline mode). */
  dbPipeline: number
  dbMaxBatch: number
  cacheEntries: number
  /** Blocks with uncles held in memory (reads/uncleFilter.ts); false: every unknown hash is read. */
  nullFilter: boolean
  /** JSON-RPC POSTs read strictly beneath node:http (the fast path of @uncle-rpc/wire); false: node:http reads every request. */
  fastPath: boolean
  /** Fast-path requests answered per event-loop turn; 0 = no bound. */
  requestsPerTurn: number
  limits: RpcLimits
  /** Per-key rate limits in Redis (REDIS_URL); false: none. */
  rateLimits: boolean
  redisTimeoutMs: number
  dbDeadlineMs: number
  partner: { timeoutMs: number; failureThreshold: number; cooldownMs: number }
  usageFlushMs: number
  replicaMaxLagMs: number
  /** Bounds of every Postgres connection (primary and replicas). */
  db: DbTimeoutFlags
  keyLookupTimeoutMs: number
  readyTimeoutMs: number
  listenBacklog: number
  maxEventLoopLagMs: number
  /** Where to serve GET /metrics, /health and /ready (full detail); undefined = no admin port. */
  metrics: MetricsListen | undefined
}

const defaultPort = 8545

/** Postgres bounds of the rpc: statements of ours take milliseconds; a hung server is given up on in seconds. */
const defaultRpcDbTimeouts: DbTimeoutFlags = { statementTimeoutMs: 5000, queryTimeoutMs: 6000, connectTimeoutMs: 1000, keepAliveMs: 10_000 }
const defaultReadyTimeoutMs = 1000

export const usage = `Usage: uncle-rpc rpc [--config <file>] [--port <p>] [--host <addr>] [flags]

Serves eth_getUncleByBlockHashAndIndex from the Postgres index, Infura-style:
  HTTP       POST /v3/<API_KEY>          network from the Host: a network's "hosts" in the config, else
                                         the first label (mainnet.example.com → mainnet)
             POST /<network>/v3/<API_KEY>
  WebSocket  /ws/v3/<API_KEY>, /<network>/ws/v3/<API_KEY>
  GET /health (process up), GET /ready (200 when Postgres, Redis and the partners answer and a
  network is indexed, else 503; the body names what is degraded: postgres, index, redis,
  partner:<network>, replicas; details only on the admin port, --metrics-port)
With one network served, every Host is that network.
Create keys with \`uncle-rpc keys create --plan core\`.
Exits 1 when it cannot listen on --host/--port (the port taken, EADDRINUSE), with the reason on stderr.

Flags:
  --config <file>                  networks config (JSON, same file as the indexer); default
                                   $UNCLE_RPC_CONFIG, else the demo config (one network "mainnet")
  --port <n>                       default ${defaultPort} (0: any free port)
  --host <addr>                    default 127.0.0.1 (0.0.0.0 to listen on every interface)
  --workers <n>                    server processes sharing the port (node:cluster); default 1
  --db-pool <n>                    Postgres connections per process (and per read replica); uncle
                                   lookups use each for at most one statement at a time, and
                                   lookups arriving meanwhile wait for the next; default 10
  --db-pipeline <n>                statements in flight per connection (pg's pipeline mode; each
                                   still bounded by its timeouts); 1 = one at a time; default 1
  --db-max-batch <n>               most uncle lookups in one statement; default ${defaultMaxLookupsPerStatement}
  --cache-entries <n>              answers kept in memory per cache, by hash and by block number
                                   (~1.4 KB each; only uncles at least \`confirmations\` deep);
                                   0 = off; default ${defaultCacheEntries}
  --fast-path <on|off>             answer plain JSON-RPC POSTs (one Content-Length, no chunking,
                                   upgrade or Expect, a strict HTTP/1.1 head) beneath node:http;
                                   every other request is node:http's as before; default on
  --requests-per-turn <n>          fast-path requests answered per event-loop turn while new
                                   connections arrive (one in the last 1-2 s), the rest in arrival
                                   order in the next turns: node 20 accepts one new connection per
                                   turn, so short turns let a burst of thousands of connections in;
                                   with none arriving there is no bound; 0 = never a bound;
                                   default ${defaultRequestsPerTurn}
  --null-filter <on|off>           keep the hashes of the blocks with uncles in memory (8 bytes each,
                                   ~16-32 MB for mainnet), followed by LISTEN on the primary, so an
                                   unknown hash is answered null without a database read; it is off
                                   by itself while it cannot prove it hears (behind a transaction
                                   pooler: set DATABASE_LISTEN_URL); default on
Overload:
  --listen-backlog <n>             connections the kernel holds until accepted (listen backlog);
                                   Linux caps it at net.core.somaxconn (\`sysctl net.core.somaxconn\`:
                                   4096 on kernels since 5.4, 128 before); default ${defaultListenBacklog}
  --max-event-loop-lag-ms <n>      once the event loop is this far behind, new JSON-RPC requests get
                                   503 -32005 "server busy" with Retry-After: 1 at once (WebSocket:
                                   that error per message) until it catches up; 0 = never; default ${defaultMaxEventLoopLagMs}
Limits:
  --max-body-bytes <n>             HTTP body limit → 413; default ${defaultLimits.maxBodyBytes} (5 MiB)
  --max-batch-size <n>             batch entries → single -32600 "batch too large: at most <n> calls per batch"; default ${defaultLimits.maxBatchSize}
  --max-ws-message-bytes <n>       WebSocket message limit → close 1009; default ${defaultLimits.maxWsMessageBytes}
  --ws-idle-timeout-ms <n>         close a WebSocket silent this long; default ${defaultLimits.wsIdleTimeoutMs}
  --ws-ping-interval-ms <n>        ping period; no pong by the next ping → dropped; default ${defaultLimits.wsPingIntervalMs}
  --max-ws-connections-per-key <n> open WebSockets per key → 429 at upgrade; default ${defaultLimits.maxWsConnectionsPerKey}
  --request-timeout-ms <n>         whole HTTP request (headers and body) within this → else 408;
                                   default ${defaultLimits.requestTimeoutMs}
  --ws-max-in-flight <n>           messages of one WebSocket answered at once; past it (or past
                                   --ws-max-queued-bytes of answers the client has not taken) the
                                   socket is not read; default ${defaultLimits.wsMaxInFlight}
  --ws-max-queued-bytes <n>        default ${defaultLimits.wsMaxQueuedBytes} (8 MiB)
  --ws-stalled-close-ms <n>        a socket held unread this long is closed (1013); default ${defaultLimits.wsStalledCloseMs}
Plans and rate limits (limits per plan and key: \`uncle-rpc keys plans\`, \`keys set-limits\`):
  --rate-limits <on|off>           per-second and per-UTC-day limits per key, shared by every process
                                   through Redis (REDIS_URL); each batch entry counts; over a limit →
                                   429 -32005 with Retry-After; default on
  --redis-timeout-ms <n>           longest wait for Redis; past it (or with Redis down) the process
                                   fails open to its own per-second limits; default 200
Failover (growth and custom plans; networks[].partnerUrl in the config):
  --db-deadline-ms <n>             a database read with no read completing for this long (4× in all)
                                   counts as "index unavailable"; default ${defaultDeadlineMs}
  --partner-timeout-ms <n>         whole partner request; default ${defaultPartnerTimeoutMs}
  --partner-failures <n>           consecutive partner failures that open its circuit; default ${defaultPartnerFailureThreshold}
  --partner-cooldown-ms <n>        open circuit → one probe after this long; default ${defaultPartnerCooldownMs}
  --usage-flush-ms <n>             how often usage is written (usage_daily and usage_hourly, one
                                   transaction); a SIGKILL loses at most two of these periods;
                                   default ${defaultUsageFlushMs}
Read replicas (DATABASE_READ_URL, comma-separated; usage and keys stay on DATABASE_URL):
  --replica-max-lag-ms <n>         a replica further behind the primary than this (or not answering)
                                   is skipped until it catches up; none left → the primary; default 1000
${dbTimeoutsUsage(defaultRpcDbTimeouts)}
  --key-lookup-timeout-ms <n>      longest wait for a key not in memory; past it (or when the lookup
                                   fails) 503 with Retry-After, never a false 401; default ${defaultKeyLookupTimeoutMs}
  --ready-timeout-ms <n>           longest wait for /ready's database read; past it 503 "postgres"; default ${defaultReadyTimeoutMs}
${metricsUsage}
                                   (with --workers, the primary serves the sum of its workers)
  -h, --help

Errors: unknown network → 404, missing key → 401 "project id required in the url", unknown or
revoked key → 401 "invalid project id", a key that cannot be checked now (database unavailable)
→ 503 -32603 with Retry-After (WebSocket: the upgrade is refused the same way), Content-Type not application/json → 415; all with a
JSON-RPC error body. Answers carry no trailing newline (a partner's answer is passed on as it
came, marked X-Failover: partner).
Environment: DATABASE_URL, DATABASE_READ_URL, DATABASE_LISTEN_URL (the null filter's connection to
the primary, direct or session-mode; default DATABASE_URL), REDIS_URL (redis://…, or under Redis Sentinel
redis+sentinel://host:port[,host:port…]/<master name>), UNCLE_RPC_CONFIG, LOG_LEVEL.
Run \`uncle-rpc migrate\` first.
`

const integer = integerFlag

/** Parses the flags of `uncle-rpc rpc`; `'help'` when help was asked for. Throws UsageError. */
export function parseRpcArgs(argv: string[]): RpcArgs | 'help' {
  const flags = [
    'config',
    'port',
    'host',
    'workers',
    'db-pool',
    'db-pipeline',
    'db-max-batch',
    'cache-entries',
    'null-filter',
    'fast-path',
    'requests-per-turn',
    'max-body-bytes',
    'max-batch-size',
    'max-ws-message-bytes',
    'ws-idle-timeout-ms',
    'ws-ping-interval-ms',
    'max-ws-connections-per-key',
    'request-timeout-ms',
    'ws-max-in-flight',
    'ws-max-queued-bytes',
    'ws-stalled-close-ms',
    'rate-limits',
    'redis-timeout-ms',
    'db-deadline-ms',
    'partner-timeout-ms',
    'partner-failures',
    'partner-cooldown-ms',
    'usage-flush-ms',
    'replica-max-lag-ms',
    'listen-backlog',
    'max-event-loop-lag-ms',
    'metrics-port',
    'metrics-host',
    'key-lookup-timeout-ms',
    'ready-timeout-ms',
    ...dbTimeoutFlagNames,
  ] as const
  const values = parseFlags(argv, Object.fromEntries(flags.map((f) => [f, { type: 'string' as const }]))) as Partial<
    Record<(typeof flags)[number], string>
  > & { help?: boolean | undefined }
  if (values.help) return 'help'
  const rateLimits = values['rate-limits'] ?? 'on'
  if (rateLimits !== 'on' && rateLimits !== 'off') throw new UsageError(`--rate-limits must be on or off, got "${rateLimits}"`)
  const fastPath = values['fast-path'] ?? 'on'
  if (fastPath !== 'on' && fastPath !== 'off') throw new UsageError(`--fast-path must be on or off, got "${fastPath}"`)
  const nullFilter = values['null-filter'] ?? 'on'
  if (nullFilter !== 'on' && nullFilter !== 'off') throw new UsageError(`--null-filter must be on or off, got "${nullFilter}"`)
  const port = integer('port', values.port, 0, defaultPort)
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got "${values.port}"`)
  const metricsPort = values['metrics-port'] === undefined ? undefined : integer('metrics-port', values['metrics-port'], 0, 0)
  if (metricsPort !== undefined && metricsPort > 65535) throw new UsageError(`--metrics-port must be at most 65535, got "${values['metrics-port']}"`)
  return {
    config: values.config,
    port,
    host: values.host ?? '127.0.0.1',
    workers: integer('workers', values.workers, 1, 1),
    dbPool: integer('db-pool', values['db-pool'], 1, 10),
    dbPipeline: integer('db-pipeline', values['db-pipeline'], 1, 1),
    dbMaxBatch: integer('db-max-batch', values['db-max-batch'], 1, defaultMaxLookupsPerStatement),
    cacheEntries: integer('cache-entries', values['cache-entries'], 0, defaultCacheEntries),
    nullFilter: nullFilter === 'on',
    fastPath: fastPath === 'on',
    requestsPerTurn: integer('requests-per-turn', values['requests-per-turn'], 0, defaultRequestsPerTurn),
    limits: {
      maxBodyBytes: integer('max-body-bytes', values['max-body-bytes'], 1, defaultLimits.maxBodyBytes),
      maxBatchSize: integer('max-batch-size', values['max-batch-size'], 1, defaultLimits.maxBatchSize),
      maxWsMessageBytes: integer('max-ws-message-bytes', values['max-ws-message-bytes'], 1, defaultLimits.maxWsMessageBytes),
      wsIdleTimeoutMs: integer('ws-idle-timeout-ms', values['ws-idle-timeout-ms'], 1, defaultLimits.wsIdleTimeoutMs),
      wsPingIntervalMs: integer('ws-ping-interval-ms', values['ws-ping-interval-ms'], 1, defaultLimits.wsPingIntervalMs),
      maxWsConnectionsPerKey: integer(
        'max-ws-connections-per-key',
        values['max-ws-connections-per-key'],
        1,
        defaultLimits.maxWsConnectionsPerKey,
      ),
      requestTimeoutMs: integer('request-timeout-ms', values['request-timeout-ms'], 1, defaultLimits.requestTimeoutMs),
      wsMaxInFlight: integer('ws-max-in-flight', values['ws-max-in-flight'], 1, defaultLimits.wsMaxInFlight),
      wsMaxQueuedBytes: integer('ws-max-queued-bytes', values['ws-max-queued-bytes'], 1, defaultLimits.wsMaxQueuedBytes),
      wsStalledCloseMs: integer('ws-stalled-close-ms', values['ws-stalled-close-ms'], 1, defaultLimits.wsStalledCloseMs),
    },
    rateLimits: rateLimits === 'on',
    redisTimeoutMs: integer('redis-timeout-ms', values['redis-timeout-ms'], 1, 200),
    dbDeadlineMs: integer('db-deadline-ms', values['db-deadline-ms'], 1, defaultDeadlineMs),
    partner: {
      timeoutMs: integer('partner-timeout-ms', values['partner-timeout-ms'], 1, defaultPartnerTimeoutMs),
      failureThreshold: integer('partner-failures', values['partner-failures'], 1, defaultPartnerFailureThreshold),
      cooldownMs: integer('partner-cooldown-ms', values['partner-cooldown-ms'], 1, defaultPartnerCooldownMs),
    },
    usageFlushMs: integer('usage-flush-ms', values['usage-flush-ms'], 1, defaultUsageFlushMs),
    replicaMaxLagMs: integer('replica-max-lag-ms', values['replica-max-lag-ms'], 1, 1000),
    db: parseDbTimeoutFlags(values, defaultRpcDbTimeouts),
    keyLookupTimeoutMs: integer('key-lookup-timeout-ms', values['key-lookup-timeout-ms'], 1, defaultKeyLookupTimeoutMs),
    readyTimeoutMs: integer('ready-timeout-ms', values['ready-timeout-ms'], 1, defaultReadyTimeoutMs),
    listenBacklog: integer('listen-backlog', values['listen-backlog'], 1, defaultListenBacklog),
    maxEventLoopLagMs: integer('max-event-loop-lag-ms', values['max-event-loop-lag-ms'], 0, defaultMaxEventLoopLagMs),
    metrics: metricsPort === undefined ? undefined : { port: metricsPort, host: values['metrics-host'] ?? '127.0.0.1' },
  }
}
