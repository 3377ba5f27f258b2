import { BoundCounter, BoundHistogram, Counter, createRegistry, Gauge, type CounterSeries, type HistogramSeries, type Registry } from '@uncle-rpc/metrics'
import type { ReplicaState } from '@uncle-rpc/db'
import type { Tally } from '@uncle-rpc/jsonrpc'
import type { AnswerCache } from './reads/cache.js'
import type { BreakerState } from './protection/breaker.js'

/** How a message arrived. */
export type Transport = 'http' | 'ws'

/** The per-call outcomes of uncle_rpc_requests_total. */
export type CallOutcome = 'found' | 'null' | 'error' | 'rate_limited' | 'forwarded'

/** What the gauges read at scrape time. */
export type RpcMetricSources = {
  partners: ReadonlyMap<string, { readonly state: BreakerState }>
  wsConnections: () => number
  /** Answers held by the cache by hash and the cache by block number. */
  cacheEntries: () => { byHash: number; byNumber: number }
  /** Whether Redis answers and rate limits are shared; absent when rate limits are off. */
  redisShared?: (() => boolean) | undefined
  /** The read replicas' states; absent when none are configured. */
  replicas?: (() => readonly ReplicaState[]) | undefined
  /** The primary's connection pool: connections open, idle, and callers waiting for one. */
  pool?: (() => { total: number; idle: number; waiting: number }) | undefined
}

/**
 * The RPC service's Prometheus metrics. Every hook is a few map lookups and additions; the
 * service takes `metrics` as optional and skips the hooks entirely when metrics are off.
 * No label carries a key (bounded cardinality: networks × transports × outcomes).
 */
export type RpcMetrics = {
  registry: Registry
  /**
   * One answered message: the calls answered here by kind (`local`, counted where each answer
   * was made), `forwarded` calls the partner answered, `seconds` since the message was parsed.
   */
  answered(network: string, transport: Transport, local: Tally, forwarded: number, seconds: number): void
  /** A message refused by the key's rate limits: `calls` batch entries. */
  rateLimited(network: string, transport: Transport, plan: string, calls: number, seconds: number): void
  /** The cache wrapped so every lookup counts as a hit or a miss. */
  countLookups(cache: AnswerCache): AnswerCache
  /** One batched uncle statement (store.ts): `seconds` from sending it to its rows, `lookups` it carried; `failed` when it failed. */
  uncleRead(seconds: number, lookups: number, failed: boolean): void
  /** A message shed under overload (503 / -32005 "server busy") before it was read further. */
  shed(transport: Transport): void
  /** One call of a served method (methods/countCalls.ts), by network and wire name. */
  methodCalled(network: string, method: string): void
  /** A forwarded call's partner answer checked against the chain (pipeline/partnerProof.ts): passed or failed. */
  partnerVerified(network: string, passed: boolean): void
  /** Binds the gauges to the live state they report. */
  watch(sources: RpcMetricSources): void
}

const durationBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
/** Lookups per batched statement: powers of two up to the statement's limit (store.ts maxLookupsPerStatement). */
const lookupBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 256]

/** Creates the RPC families on a fresh registry (with the default process metrics). */
export function createRpcMetrics(): RpcMetrics {
  const registry = createRegistry()
  const registers = [registry]
  // Note: the families updated per message or lookup are BoundCounter and BoundHistogram
  // (packages/metrics): prom-client's exposition, series bound once instead of labels hashed per update.
  const requests = new BoundCounter({
    name: 'uncle_rpc_requests_total',
    help: 'JSON-RPC calls (batch entries) by outcome: found, null, error, rate_limited, forwarded (answered by the failover partner)',
    labelNames: ['network', 'transport', 'outcome'],
    registers,
  })
  const duration = new BoundHistogram({
    name: 'uncle_rpc_request_duration_seconds',
    help: 'Time to answer one message (an HTTP body or a WebSocket message, single or batch), from parsing to the answer text',
    labelNames: ['network', 'transport'],
    buckets: durationBuckets,
    registers,
  })
  const lookups = new BoundCounter({
    name: 'uncle_rpc_cache_lookups_total',
    help: 'Answer cache lookups by result (hit, miss)',
    labelNames: ['result'],
    registers,
  })
  const rateLimited = new Counter({
    name: 'uncle_rpc_rate_limited_total',
    help: 'Calls refused by per-key rate limits (429 -32005), by the key plan',
    labelNames: ['plan'] as const,
    registers,
  })
  const forwardedTotal = new Counter({
    name: 'uncle_rpc_failover_forwarded_total',
    help: 'Calls answered by the network failover partner',
    labelNames: ['network'] as const,
    registers,
  })
  const methodCalls = new BoundCounter({
    name: 'uncle_rpc_method_calls_total',
    help: 'Calls of each served method (eth_getUncleByBlockHashAndIndex, eth_getUncleByBlockNumberAndIndex, eth_getUncleCountByBlockHash, eth_getUncleCountByBlockNumber, eth_chainId, net_version) by network; unknown methods are not counted',
    labelNames: ['network', 'method'],
    registers,
  })
  // Note: one bound series per (network, method), found by two Map lookups per call on strings
  // that are always the same objects (hashed once), not on a key concatenated per call.
  const methodSeries = new Map<string, Map<string, CounterSeries>>()
  const verifiedTotal = new Counter({
    name: 'uncle_rpc_partner_verifications_total',
    help: 'Failover partner answers checked against the chain (nephew header, sha3Uncles, uncle hashes) by outcome: passed, failed',
    labelNames: ['network', 'outcome'] as const,
    registers,
  })
  const shedTotal = new BoundCounter({
    name: 'uncle_rpc_shed_total',
    help: 'Messages shed because the event loop was too far behind (--max-event-loop-lag-ms): HTTP 503 or a WebSocket -32005 "server busy", by transport',
    labelNames: ['transport'],
    registers,
  })
  const shedSeries = { http: shedTotal.labels({ transport: 'http' }), ws: shedTotal.labels({ transport: 'ws' }) }
  const readDuration = new BoundHistogram({
    name: 'uncle_rpc_db_read_duration_seconds',
    help: 'Time of one batched uncle lookup statement (the misses queued while the earlier statements were in flight), from sending it to its rows, by result (ok, failed)',
    labelNames: ['result'],
    buckets: durationBuckets,
    registers,
  })
  const readLookups = new BoundHistogram({
    name: 'uncle_rpc_db_read_lookups',
    help: 'Uncle lookups carried by one batched statement',
    labelNames: [],
    buckets: lookupBuckets,
    registers,
  }).labels({})
  const readOk = readDuration.labels({ result: 'ok' })
  const readFailed = readDuration.labels({ result: 'failed' })
  let sources: RpcMetricSources = { partners: new Map(), wsConnections: () => 0, cacheEntries: () => ({ byHash: 0, byNumber: 0 }) }
  new Gauge({
    name: 'uncle_rpc_partner_circuit_open',
    help: 'Whether the failover partner circuit of a network is open or probing (1) or closed (0)',
    labelNames: ['network'] as const,
    aggregator: 'max',
    registers,
    collect() {
      for (const [network, partner] of sources.partners) this.set({ network }, partner.state === 'closed' ? 0 : 1)
    },
  })
  new Gauge({
    name: 'uncle_rpc_db_pool_connections',
    help: 'Connections of the primary database pool by state: total (open), idle, waiting (callers queued for a connection)',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const pool = sources.pool?.()
      if (pool === undefined) return
      this.set({ state: 'total' }, pool.total)
      this.set({ state: 'idle' }, pool.idle)
      this.set({ state: 'waiting' }, pool.waiting)
    },
  })
  new Gauge({
    name: 'uncle_rpc_websocket_connections',
    help: 'Open WebSocket connections',
    registers,
    collect() {
      this.set(sources.wsConnections())
    },
  })
  new Gauge({
    name: 'uncle_rpc_cache_entries',
    help: 'Answers held in memory, by cache: by_hash (eth_getUncleByBlockHashAndIndex and the counts by hash) and by_number (answers by block number, dropped on a reorg)',
    labelNames: ['cache'] as const,
    registers,
    collect() {
      const { byHash, byNumber } = sources.cacheEntries()
      this.set({ cache: 'by_hash' }, byHash)
      this.set({ cache: 'by_number' }, byNumber)
    },
  })
  new Gauge({
    name: 'uncle_rpc_db_replica_usable',
    help: 'Whether a read replica (DATABASE_READ_URL) answers and lags no more than --replica-max-lag-ms (1) or is skipped (0)',
    labelNames: ['replica'] as const,
    aggregator: 'min',
    registers,
    collect() {
      this.reset()
      for (const r of sources.replicas?.() ?? []) this.set({ replica: r.name }, r.usable ? 1 : 0)
    },
  })
  new Gauge({
    name: 'uncle_rpc_db_replica_lag_seconds',
    help: 'Replication lag of a read replica at its last probe; absent while it does not answer',
    labelNames: ['replica'] as const,
    aggregator: 'max',
    registers,
    collect() {
      this.reset()
      for (const r of sources.replicas?.() ?? []) if (r.lagMs !== null) this.set({ replica: r.name }, r.lagMs / 1000)
    },
  })
  new Gauge({
    name: 'uncle_rpc_db_replica_replicating',
    help: 'Whether a read replica is in recovery with a replay position (1), or not (0: promoted, or a primary named as a replica; never read); absent while it does not answer',
    labelNames: ['replica'] as const,
    aggregator: 'min',
    registers,
    collect() {
      this.reset()
      for (const r of sources.replicas?.() ?? []) if (r.replicating !== null) this.set({ replica: r.name }, r.replicating ? 1 : 0)
    },
  })
  const hit = lookups.labels({ result: 'hit' })
  const miss = lookups.labels({ result: 'miss' })

  // Note: the series of a network and transport, bound once: an update by label object hashes the
  // labels on every call, which made metrics on cost a quarter of a cached answer's throughput.
  type Series = Record<CallOutcome, CounterSeries> & { duration: HistogramSeries }
  const series = new Map<string, Record<Transport, Series>>()
  const bind = (network: string, transport: Transport): Series => {
    const outcome = (name: CallOutcome) => requests.labels({ network, transport, outcome: name })
    return {
      found: outcome('found'),
      null: outcome('null'),
      error: outcome('error'),
      rate_limited: outcome('rate_limited'),
      forwarded: outcome('forwarded'),
      duration: duration.labels({ network, transport }),
    }
  }
  const seriesOf = (network: string, transport: Transport): Series => {
    let byTransport = series.get(network)
    if (byTransport === undefined) {
      byTransport = { http: bind(network, 'http'), ws: bind(network, 'ws') }
      series.set(network, byTransport)
    }
    return byTransport[transport]
  }

  return {
    registry,
    answered(network, transport, local, forwarded, seconds) {
      const s = seriesOf(network, transport)
      if (local.found > 0) s.found.inc(local.found)
      if (local.nulls > 0) s.null.inc(local.nulls)
      if (local.errors > 0) s.error.inc(local.errors)
      if (forwarded > 0) {
        s.forwarded.inc(forwarded)
        forwardedTotal.inc({ network }, forwarded)
      }
      s.duration.observe(seconds)
    },
    rateLimited(network, transport, plan, calls, seconds) {
      const s = seriesOf(network, transport)
      if (calls > 0) s.rate_limited.inc(calls)
      rateLimited.inc({ plan }, calls)
      s.duration.observe(seconds)
    },
    uncleRead(seconds, lookups, failed) {
      ;(failed ? readFailed : readOk).observe(seconds)
      readLookups.observe(lookups)
    },
    shed(transport) {
      shedSeries[transport].inc()
    },
    methodCalled(network, method) {
      let byMethod = methodSeries.get(network)
      if (byMethod === undefined) {
        byMethod = new Map()
        methodSeries.set(network, byMethod)
      }
      let series = byMethod.get(method)
      if (series === undefined) {
        series = methodCalls.labels({ network, method })
        byMethod.set(method, series)
      }
      series.inc()
    },
    partnerVerified(network, passed) {
      verifiedTotal.inc({ network, outcome: passed ? 'passed' : 'failed' })
    },
    countLookups: (cache) => ({
      get(network, blockHash, index) {
        const json = cache.get(network, blockHash, index)
        if (json === undefined) miss.inc()
        else hit.inc()
        return json
      },
      set: (network, blockHash, index, json) => cache.set(network, blockHash, index, json),
      get size() {
        return cache.size
      },
      enabled: cache.enabled,
      clear: () => cache.clear(),
    }),
    watch(next) {
      sources = next
      // Note: registered only with rate limits on; an unlabelled gauge always has a sample, and a
      // constant 0 or 1 without Redis in use would be a false alert or a false all-clear.
      if (next.redisShared !== undefined && registry.getSingleMetric('uncle_rpc_redis_up') === undefined)
        new Gauge({
          name: 'uncle_rpc_redis_up',
          help: 'Whether Redis answers and per-key limits are shared (1) or failing open to per-process limits (0); absent when rate limits are off',
          aggregator: 'min',
          registers,
          collect() {
            this.set(sources.redisShared?.() === true ? 1 : 0)
          },
        })
    },
  }
}
