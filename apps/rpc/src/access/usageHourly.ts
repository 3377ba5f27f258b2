import type { Logger } from '@uncle-rpc/config'
import type { HourlyUsageDelta } from '@uncle-rpc/db'

/** Where hourly usage goes (usage_hourly: one upsert per flush), and how old rows are pruned. */
export type HourlyUsageStore = {
  add(deltas: readonly HourlyUsageDelta[]): Promise<void>
  prune(): Promise<void>
}

/** Per key, network and UTC hour counters for the dashboard, kept in memory and written in batches. */
export type HourlyUsageRecorder = {
  /** Counts calls of one message. Synchronous, no IO. */
  add(keyId: number, network: string, requests: number, errors: number, forwarded: number, rateLimited: number): void
  /** Writes everything counted so far (also every flushIntervalMs); on failure it is kept for the next flush. */
  flush(): Promise<void>
  stop(): Promise<void>
}

const hourMs = 3_600_000

/**
 * The hourly companion of usage.ts (which keeps usage_daily): the same counts, split by network
 * and hour. Old rows are pruned about once an hour. Pending counts are capped at maxPending
 * key-network-hours while the database is unreachable.
 */
export function createHourlyUsageRecorder(
  { store, logger }: { store: HourlyUsageStore; logger: Logger },
  { flushIntervalMs = 5000, maxPending = 100_000 }: { flushIntervalMs?: number | undefined; maxPending?: number | undefined } = {},
): HourlyUsageRecorder {
  let hour = ''
  let nextHourAt = 0
  // Invariant: `current` holds counts of `hour` only (keyId → network → delta); older hours wait in `pending`.
  let current = new Map<number, Map<string, HourlyUsageDelta>>()
  let pending: HourlyUsageDelta[] = []
  let flushing: Promise<void> = Promise.resolve()
  let lastPrune = 0

  const drain = () => {
    for (const byNetwork of current.values()) for (const d of byNetwork.values()) pending.push(d)
    current = new Map()
  }

  function add(keyId: number, network: string, requests: number, errors: number, forwarded: number, rateLimited: number) {
    const now = Date.now()
    if (now >= nextHourAt) {
      drain()
      const start = Math.floor(now / hourMs) * hourMs
      hour = new Date(start).toISOString()
      nextHourAt = start + hourMs
    }
    let byNetwork = current.get(keyId)
    if (byNetwork === undefined) current.set(keyId, (byNetwork = new Map()))
    let delta = byNetwork.get(network)
    if (delta === undefined) byNetwork.set(network, (delta = { keyId, hour, network, requests: 0, errors: 0, forwarded: 0, rateLimited: 0 }))
    delta.requests += requests
    delta.errors += errors
    delta.forwarded += forwarded
    delta.rateLimited += rateLimited
  }

  async function write() {
    drain()
    const batch = pending
    pending = []
    try {
      if (batch.length > 0) await store.add(batch)
      if (Date.now() - lastPrune >= hourMs) {
        lastPrune = Date.now()
        await store.prune()
      }
    } catch (error) {
      // Note: upserts add, so what failed is written by the next flush without double counting.
      pending = batch.concat(pending).slice(-maxPending)
      logger.warn({ msg: 'writing hourly usage failed; kept for the next flush', error: (error as Error).message })
    }
  }

  const flush = () => (flushing = flushing.then(write))
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
