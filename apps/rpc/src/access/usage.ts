import type { Logger } from '@uncle-rpc/config'
import { addUsageCounts, type HourlyUsageDelta, type MethodUsageDelta, type UsageCounter, type UsageDelta, zeroUsageCounts } from '@uncle-rpc/db/accounts'

/**
 * Where usage goes: each flush as one transaction of usage_daily (billing, daily limits),
 * usage_hourly (the dashboard's charts) and usage_methods (calls per method) upserts, and the
 * pruning of old hourly rows.
 */
export type UsageStore = {
  write(batch: { daily: readonly UsageDelta[]; hourly: readonly HourlyUsageDelta[]; methods: readonly MethodUsageDelta[] }): Promise<void>
  prune(): Promise<void>
}

/**
 * The methods a message's calls named: one method for all of them (a single call, or a message
 * counted as one call), or calls per method for a batch (summing to its requests). Names are
 * methods served here or `otherMethod`, so what is kept stays bounded.
 */
export type MessageMethods = string | ReadonlyMap<string, number>

/** Per key, network and UTC hour counters (and calls per method), kept in memory and written in batches (daily rows are their sums). */
export type UsageRecorder = {
  /**
   * Counts calls of one message (each batch entry is a call), and its calls per method (a message
   * is rate limited whole: rateLimited is 0 or requests). Synchronous, no IO.
   */
  add(keyId: number, network: string, requests: number, errors: number, forwarded: number, rateLimited: number, methods: MessageMethods): void
  /** Counts one request (or WebSocket upgrade, or message) of a known key refused before it was read. Synchronous, no IO. */
  refuse(keyId: number, network: string, reason: RefusalReason): void
  /** Writes everything counted so far now (also done every flushIntervalMs); on failure it is kept for the next flush. */
  flush(): Promise<void>
  /** Stops the timer and flushes. */
  stop(): Promise<void>
}

/**
 * Why a request of a known key was refused before it was read: its key is revoked (401), or a
 * restriction of the key failed (403 -32002: network, Origin, User-Agent, secret). A missing or
 * unknown key has no key to count on; rate limits (429) are counted as `rateLimited` calls.
 */
export type RefusalReason = 'revoked' | 'network' | 'origin' | 'userAgent' | 'secret'

/** The usage counter of each reason (refused_revoked, refused_network, … in the tables). */
const refusedCounter = {
  revoked: 'refusedRevoked',
  network: 'refusedNetwork',
  origin: 'refusedOrigin',
  userAgent: 'refusedUserAgent',
  secret: 'refusedSecret',
} as const satisfies Record<RefusalReason, UsageCounter>

/** Counts refusals (a UsageRecorder is one): what admission needs of usage. */
export type RefusalCounter = Pick<UsageRecorder, 'refuse'>

/**
 * Default flush period. A SIGKILL loses what was counted since the last write that committed: at
 * most two periods (the one being written and the one being counted), so 1 s of traffic.
 */
export const defaultUsageFlushMs = 500

export type CreateUsageRecorderParameters = {
  /** Default {@link defaultUsageFlushMs}. */
  flushIntervalMs?: number | undefined
  /** Most key-network-hours kept while the database is unreachable; beyond it the oldest counts are dropped (and logged). Default 100,000. */
  maxPending?: number | undefined
}

const hourMs = 3_600_000

/** One key-network-hour's counts, its calls per method (method → delta) and the method counted on last (consecutive calls mostly name one). */
type Counted = { delta: HourlyUsageDelta; methods: Map<string, MethodUsageDelta>; last: MethodUsageDelta | undefined }

/** The usage_daily deltas of hourly counts: summed per key and UTC day of their hour. */
function dailyOf(hourly: readonly HourlyUsageDelta[]): UsageDelta[] {
  const days = new Map<string, UsageDelta>()
  for (const h of hourly) {
    const day = h.hour.slice(0, 10)
    const id = `${h.keyId}/${day}`
    let d = days.get(id)
    if (d === undefined) days.set(id, (d = { keyId: h.keyId, day, ...zeroUsageCounts() }))
    addUsageCounts(d, h)
  }
  return [...days.values()]
}

/**
 * Accumulates usage in memory per key, network and UTC hour (and method), and every
 * flushIntervalMs writes it (usage_hourly += …, usage_daily += the same counts summed per day,
 * usage_methods += the calls per method and day) in one transaction, so the hot path costs three
 * Map lookups and six additions (one lookup for each further method of a batch). A request is counted in the hour (and
 * day) it arrived, even when the flush happens after. Old hourly rows are pruned about once an hour.
 */
export function createUsageRecorder({ store, logger }: { store: UsageStore; logger: Logger }, parameters: CreateUsageRecorderParameters = {}): UsageRecorder {
  const { flushIntervalMs = defaultUsageFlushMs, maxPending = 100_000 } = parameters
  let hour = ''
  let nextHourAt = 0
  // Invariant: `current` holds counts of `hour` only (keyId → network → counts); older hours wait in `pending`.
  let current = new Map<number, Map<string, Counted>>()
  // The counts added to last, while they are in `current`: consecutive requests mostly come from one key and network.
  let last: Counted | undefined
  let pending: HourlyUsageDelta[] = []
  let pendingMethods: MethodUsageDelta[] = []
  let flushing: Promise<void> | undefined
  let failing = false
  let lastPrune = 0

  function drain() {
    for (const byNetwork of current.values())
      for (const { delta, methods } of byNetwork.values()) {
        pending.push(delta)
        for (const m of methods.values()) pendingMethods.push(m)
      }
    current = new Map()
    last = undefined
  }

  /** The counts of this key, network and the current hour. */
  function countedOf(keyId: number, network: string): Counted {
    const now = Date.now()
    if (now >= nextHourAt) {
      drain()
      const start = Math.floor(now / hourMs) * hourMs
      hour = new Date(start).toISOString()
      nextHourAt = start + hourMs
    }
    if (last !== undefined && last.delta.keyId === keyId && last.delta.network === network) return last
    let byNetwork = current.get(keyId)
    if (byNetwork === undefined) current.set(keyId, (byNetwork = new Map()))
    let counted = byNetwork.get(network)
    if (counted === undefined) byNetwork.set(network, (counted = { delta: { keyId, hour, network, ...zeroUsageCounts() }, methods: new Map(), last: undefined }))
    last = counted
    return counted
  }

  /** Adds calls of one method to the counts' per-method delta. */
  function addMethod(counted: Counted, method: string, requests: number, rateLimited: number) {
    let m = counted.last
    if (m === undefined || m.method !== method) {
      m = counted.methods.get(method)
      if (m === undefined) {
        const { keyId, hour: at, network } = counted.delta
        counted.methods.set(method, (m = { keyId, day: at.slice(0, 10), network, method, requests: 0, rateLimited: 0 }))
      }
      counted.last = m
    }
    m.requests += requests
    m.rateLimited += rateLimited
  }

  function add(keyId: number, network: string, requests: number, errors: number, forwarded: number, rateLimited: number, methods: MessageMethods) {
    const counted = countedOf(keyId, network)
    const { delta } = counted
    delta.requests += requests
    delta.errors += errors
    delta.forwarded += forwarded
    delta.rateLimited += rateLimited
    if (typeof methods === 'string') addMethod(counted, methods, requests, rateLimited)
    else for (const [method, calls] of methods) addMethod(counted, method, calls, rateLimited > 0 ? calls : 0)
  }

  function refuse(keyId: number, network: string, reason: RefusalReason) {
    countedOf(keyId, network).delta[refusedCounter[reason]]++
  }

  async function write() {
    drain()
    const batch = pending
    const methods = pendingMethods
    pending = []
    pendingMethods = []
    if (batch.length > 0)
      try {
        await store.write({ daily: dailyOf(batch), hourly: batch, methods })
        if (failing) logger.info({ msg: 'usage written again', rows: batch.length })
        failing = false
      } catch (error) {
        // Note: kept for the next flush (upserts add, and the transaction wrote nothing, so a retry never double counts).
        pending = batch.concat(pending)
        pendingMethods = methods.concat(pendingMethods)
        if (pending.length > maxPending) {
          logger.error({ msg: 'usage dropped: database unreachable too long', rows: pending.length - maxPending })
          pending = pending.slice(pending.length - maxPending)
        }
        // Note: a key-network-hour has a few methods at most; the cap drops the oldest as above.
        if (pendingMethods.length > 4 * maxPending) pendingMethods = pendingMethods.slice(pendingMethods.length - 4 * maxPending)
        if (!failing) logger.warn({ msg: 'writing usage failed; kept for the next flush', error: (error as Error).message })
        failing = true
        return
      }
    if (Date.now() - lastPrune >= hourMs) {
      lastPrune = Date.now()
      await store.prune().catch((error: unknown) => logger.warn({ msg: 'pruning hourly usage failed', error: (error as Error).message }))
    }
  }

  function flush(): Promise<void> {
    // Note: one write at a time; a flush asked for during one runs right after it.
    const next = (flushing ?? Promise.resolve()).then(write)
    flushing = next.finally(() => {
      if (flushing === settled) flushing = undefined
    })
    const settled = flushing
    return next
  }

  const timer = setInterval(() => void flush(), flushIntervalMs)
  timer.unref()
  return {
    add,
    refuse,
    flush,
    async stop() {
      clearInterval(timer)
      await flush()
    },
  }
}
