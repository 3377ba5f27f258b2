import { Counter, createRegistry, Gauge, Histogram, type Registry } from '@uncle-rpc/metrics'
import type { Tally } from '@uncle-rpc/jsonrpc'
import type { AnswerCache } from './methods/cache.js'
import type { BreakerState } from './failover/breaker.js'

/** How a message arrived. */
export type Transport = 'http' | 'ws'

/** The per-call outcomes of uncle_rpc_requests_total. */
export type CallOutcome = 'found' | 'null' | 'error' | 'rate_limited' | 'forwarded'

/** What the gauges read at scrape time. */
export type RpcMetricSources = {
  partners: ReadonlyMap<string, { readonly state: BreakerState }>
  wsConnections: () => number
  cacheEntries: () => number
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
  /** Binds the gauges to the live state they report. */
  watch(sources: RpcMetricSources): void
}

export const durationBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
/** Lookups per batched statement: powers of two up to the statement's limit (store.ts maxLookupsPerStatement). */
export const lookupBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 256]

/** Creates the RPC families on a fresh registry (with the default process metrics). */
export function createRpcMetrics(): RpcMetrics {
  const registry = createRegistry()
  const registers = [registry]
  const requests = new Counter({
    name: 'uncle_rpc_requests_total',
    help: 'JSON-RPC calls (batch entries) by outcome: found, null, error, rate_limited, forwarded (answered by the failover partner)',
    labelNames: ['network', 'transport', 'outcome'] as const,
    registers,
  })
  const duration = new Histogram({
    name: 'uncle_rpc_request_duration_seconds',
    help: 'Time to answer one message (an HTTP body or a WebSocket message, single or batch), from parsing to the answer text',
    labelNames: ['network', 'transport'] as const,
    buckets: durationBuckets,
    registers,
  })
  const lookups = new Counter({
    name: 'uncle_rpc_cache_lookups_total',
    help: 'Answer cache lookups by result (hit, miss)',
    labelNames: ['result'] as const,
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
  const readDuration = new Histogram({
    name: 'uncle_rpc_db_read_duration_seconds',
    help: 'Time of one batched uncle lookup statement (the cache misses of one event-loop turn), from sending it to its rows, by result (ok, failed)',
    labelNames: ['result'] as const,
    buckets: durationBuckets,
    registers,
  })
  const readLookups = new Histogram({
    name: 'uncle_rpc_db_read_lookups',
    help: 'Uncle lookups carried by one batched statement',
    buckets: lookupBuckets,
    registers,
  })
  const readOk = readDuration.labels('ok')
  const readFailed = readDuration.labels('failed')
  let sources: RpcMetricSources = { partners: new Map(), wsConnections: () => 0, cacheEntries: () => 0 }
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
    name: 'uncle_rpc_websocket_connections',
    help: 'Open WebSocket connections',
    registers,
    collect() {
      this.set(sources.wsConnections())
    },
  })
  new Gauge({
    name: 'uncle_rpc_cache_entries',
    help: 'Answers held in the in-memory cache',
    registers,
    collect() {
      this.set(sources.cacheEntries())
    },
  })
  const hit = lookups.labels('hit')
  const miss = lookups.labels('miss')

  function add(network: string, transport: Transport, outcome: CallOutcome, n: number) {
    if (n > 0) requests.inc({ network, transport, outcome }, n)
  }

  return {
    registry,
    answered(network, transport, local, forwarded, seconds) {
      add(network, transport, 'found', local.found)
      add(network, transport, 'null', local.nulls)
      add(network, transport, 'error', local.errors)
      if (forwarded > 0) {
        add(network, transport, 'forwarded', forwarded)
        forwardedTotal.inc({ network }, forwarded)
      }
      duration.observe({ network, transport }, seconds)
    },
    rateLimited(network, transport, plan, calls, seconds) {
      add(network, transport, 'rate_limited', calls)
      rateLimited.inc({ plan }, calls)
      duration.observe({ network, transport }, seconds)
    },
    uncleRead(seconds, lookups, failed) {
      ;(failed ? readFailed : readOk).observe(seconds)
      readLookups.observe(lookups)
    },
    countLookups: (cache) => ({
      get(key) {
        const json = cache.get(key)
        if (json === undefined) miss.inc()
        else hit.inc()
        return json
      },
      set: (key, json) => cache.set(key, json),
      get size() {
        return cache.size
      },
      clear: () => cache.clear(),
    }),
    watch(next) {
      sources = next
    },
  }
}
