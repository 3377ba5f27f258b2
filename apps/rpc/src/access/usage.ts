import type { Logger } from '@uncle-rpc/config'
import type { UsageDelta } from '@uncle-rpc/db'

/** Where usage goes (usage_daily: one upsert statement per flush). */
export type UsageStore = (deltas: readonly UsageDelta[]) => Promise<void>

/** Per key per UTC day counters, kept in memory and written in batches. */
export type UsageRecorder = {
  /** Counts calls of one message (each batch entry is a call). Synchronous, no IO. */
  add(keyId: number, requests: number, errors: number, forwarded: number, rateLimited: number): void
  /** Writes everything counted so far now (also done every flushIntervalMs); on failure it is kept for the next flush. */
  flush(): Promise<void>
  /** Stops the timer and flushes. */
  stop(): Promise<void>
}

/**
 * Default flush period. A SIGKILL loses what was counted since the last write that committed: at
 * most two periods (the one being written and the one being counted), so 1 s of traffic.
 */
export const defaultUsageFlushMs = 500

export type CreateUsageRecorderParameters = {
  /** Default {@link defaultUsageFlushMs}. */
  flushIntervalMs?: number | undefined
  /** Most key-days kept while the database is unreachable; beyond it the oldest counts are dropped (and logged). Default 100,000. */
  maxPending?: number | undefined
}

const dayMs = 86_400_000

/**
 * Accumulates usage in memory and upserts it every flushIntervalMs (usage_daily.requests +=…),
 * so the hot path costs a Map lookup and four additions. Counts are kept per UTC day: a request
 * is counted in the day it arrived, even when the flush happens after midnight.
 */
export function createUsageRecorder({ store, logger }: { store: UsageStore; logger: Logger }, parameters: CreateUsageRecorderParameters = {}): UsageRecorder {
  const { flushIntervalMs = defaultUsageFlushMs, maxPending = 100_000 } = parameters
  let day = ''
  let nextDayAt = 0
  // Invariant: `today` holds counts of `day` only; counts of earlier days wait in `pending`.
  let today = new Map<number, UsageDelta>()
  let pending: UsageDelta[] = []
  let flushing: Promise<void> | undefined
  let failing = false

  function roll(now: number) {
    for (const delta of today.values()) pending.push(delta)
    today = new Map()
    day = new Date(now).toISOString().slice(0, 10)
    nextDayAt = (Math.floor(now / dayMs) + 1) * dayMs
  }

  function add(keyId: number, requests: number, errors: number, forwarded: number, rateLimited: number) {
    const now = Date.now()
    if (now >= nextDayAt) roll(now)
    let delta = today.get(keyId)
    if (delta === undefined) {
      delta = { keyId, day, requests: 0, errors: 0, forwarded: 0, rateLimited: 0 }
      today.set(keyId, delta)
    }
    delta.requests += requests
    delta.errors += errors
    delta.forwarded += forwarded
    delta.rateLimited += rateLimited
  }

  async function write() {
    const batch = pending.concat([...today.values()])
    pending = []
    today = new Map()
    if (batch.length === 0) return
    try {
      await store(batch)
      if (failing) logger.info({ msg: 'usage written again', rows: batch.length })
      failing = false
    } catch (error) {
      // Note: kept for the next flush (upserts add, so a retry never double counts what failed).
      pending = batch.concat(pending)
      if (pending.length > maxPending) {
        logger.error({ msg: 'usage dropped: database unreachable too long', rows: pending.length - maxPending })
        pending = pending.slice(pending.length - maxPending)
      }
      if (!failing) logger.warn({ msg: 'writing usage failed; kept for the next flush', error: (error as Error).message })
      failing = true
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
    flush,
    async stop() {
      clearInterval(timer)
      await flush()
    },
  }
}
