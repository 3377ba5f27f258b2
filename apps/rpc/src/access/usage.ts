import type { Logger } from '@uncle-rpc/config'
import { addUsageCounts, type HourlyUsageDelta, type UsageCounter, type UsageDelta, zeroUsageCounts } from '@uncle-rpc/db'

/**
 * Where usage goes: each flush as one transaction of usage_daily (billing, daily limits) and
 * usage_hourly (the dashboard's charts) upserts, and the pruning of old hourly rows.
 */
export type UsageStore = {
  write(batch: { daily: readonly UsageDelta[]; hourly: readonly HourlyUsageDelta[] }): Promise<void>
  prune(): Promise<void>
}

/** Per key, network and UTC hour counters, kept in memory and written in batches (daily rows are their sums). */
export type UsageRecorder = {
  /** Counts calls of one message (each batch entry is a call). Synchronous, no IO. */
  add(keyId: number, network: string, requests: number, errors: number, forwarded: number, rateLimited: number): void
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
export const refusedCounter = {
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

/** The usage_daily deltas of hourly counts: summed per key and UTC day of their hour. */
export function dailyOf(hourly: readonly HourlyUsageDelta[]): UsageDelta[] {
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
 * Accumulates usage in memory per key, network and UTC hour, and every flushIntervalMs writes it
 * (usage_hourly += …, and usage_daily += the same counts summed per day) in one transaction, so
 * the hot path costs two Map lookups and four additions. A request is counted in the hour (and
 * day) it arrived, even when the flush happens after. Old hourly rows are pruned about once an hour.
 */
export function createUsageRecorder({ store, logger }: { store: UsageStore; logger: Logger }, parameters: CreateUsageRecorderParameters = {}): UsageRecorder {
  const { flushIntervalMs = defaultUsageFlushMs, maxPending = 100_000 } = parameters
  let hour = ''
  let nextHourAt = 0
  // Invariant: `current` holds counts of `hour` only (keyId → network → delta); older hours wait in `pending`.
  let current = new Map<number, Map<string, HourlyUsageDelta>>()
  // The delta counted on last, while it is in `current`: consecutive requests mostly come from one key and network.
  let last: HourlyUsageDelta | undefined
  let pending: HourlyUsageDelta[] = []
  let flushing: Promise<void> | undefined
  let failing = false
  let lastPrune = 0

  function drain() {
    for (const byNetwork of current.values()) for (const delta of byNetwork.values()) pending.push(delta)
    current = new Map()
    last = undefined
  }

  /** The delta of this key, network and the current hour. */
  function deltaOf(keyId: number, network: string): HourlyUsageDelta {
    const now = Date.now()
    if (now >= nextHourAt) {
      drain()
      const start = Math.floor(now / hourMs) * hourMs
      hour = new Date(start).toISOString()
      nextHourAt = start + hourMs
    }
    if (last !== undefined && last.keyId === keyId && last.network === network) return last
    let byNetwork = current.get(keyId)
    if (byNetwork === undefined) current.set(keyId, (byNetwork = new Map()))
    let delta = byNetwork.get(network)
    if (delta === undefined) byNetwork.set(network, (delta = { keyId, hour, network, ...zeroUsageCounts() }))
    last = delta
    return delta
  }

  function add(keyId: number, network: string, requests: number, errors: number, forwarded: number, rateLimited: number) {
    const delta = deltaOf(keyId, network)
    delta.requests += requests
    delta.errors += errors
    delta.forwarded += forwarded
    delta.rateLimited += rateLimited
  }

  function refuse(keyId: number, network: string, reason: RefusalReason) {
    deltaOf(keyId, network)[refusedCounter[reason]]++
  }

  async function write() {
    drain()
    const batch = pending
    pending = []
    if (batch.length > 0)
      try {
        await store.write({ daily: dailyOf(batch), hourly: batch })
        if (failing) logger.info({ msg: 'usage written again', rows: batch.length })
        failing = false
      } catch (error) {
        // Note: kept for the next flush (upserts add, and the transaction wrote nothing, so a retry never double counts).
        pending = batch.concat(pending)
        if (pending.length > maxPending) {
          logger.error({ msg: 'usage dropped: database unreachable too long', rows: pending.length - maxPending })
          pending = pending.slice(pending.length - maxPending)
        }
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
