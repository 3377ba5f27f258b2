import type { Logger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { latestIndexedBlock } from '@uncle-rpc/db/chain'
import { withDeadline } from '../protection/callDeadline.js'

/** The latest indexed block number of each network, refreshed in the background. */
export type HeadTracker = {
  /** Latest indexed block of `network` at the last refresh; null when none is known (yet). */
  latest(network: string): bigint | null
  /**
   * Reads every network's latest block now (joining a read in flight); throws if the database
   * cannot be read or does not answer within `deadlineMs`.
   */
  refresh(): Promise<ReadonlyMap<string, bigint | null>>
  stop(): void
}

export type CreateHeadTrackerParameters = {
  networks: readonly string[]
  /** Refresh period; default 2 s. */
  intervalMs?: number | undefined
  /** Longest wait for a refresh (the read goes on, bounded by the pool's query timeout). Default 1 s. */
  deadlineMs?: number | undefined
  /** Told after every read that succeeded: the database answers (the read gate of the methods may stop pausing). */
  onRead?: (() => void) | undefined
}

/**
 * Polls `latestIndexedBlock` for every network. A stale value is lower than the truth, so the
 * caching rule that reads it (depth ≥ confirmations) only gets stricter.
 */
export function createHeadTracker(
  { db, logger }: { db: Db; logger: Logger },
  { networks, intervalMs = 2000, deadlineMs = 1000, onRead }: CreateHeadTrackerParameters,
): HeadTracker {
  // Invariant: holds the values of the last successful refresh (a failed one changes nothing).
  const heads = new Map<string, bigint | null>(networks.map((n) => [n, null]))
  let failing = false
  // Note: one read at a time: while the database hangs, timer ticks and /ready polls wait for the
  // same read instead of taking a pool connection each; but not for one past its deadline, which
  // may be held on a dead server's connection (up to the query timeout) while a new connection
  // would reach the one now answering. So at most one read starts per deadline.
  let reading: { read: Promise<ReadonlyMap<string, bigint | null>>; startedAt: number } | undefined

  async function read(): Promise<ReadonlyMap<string, bigint | null>> {
    const rows = await Promise.all(networks.map((network) => latestIndexedBlock(db, { network })))
    networks.forEach((network, i) => {
      heads.set(network, rows[i]?.number ?? null)
    })
    onRead?.()
    return new Map(heads)
  }

  function refresh(): Promise<ReadonlyMap<string, bigint | null>> {
    if (reading === undefined || performance.now() - reading.startedAt >= deadlineMs) {
      const current = { read: read(), startedAt: performance.now() }
      reading = current
      void current.read
        .finally(() => {
          if (reading === current) reading = undefined
        })
        .catch(() => undefined)
    }
    return withDeadline(reading.read, deadlineMs, 'reading the latest indexed blocks')
  }

  const timer = setInterval(() => {
    refresh().then(
      () => {
        if (failing) logger.info({ msg: 'database readable again' })
        failing = false
      },
      (error: unknown) => {
        if (!failing) logger.warn({ msg: 'reading latest indexed blocks failed', error: (error as Error).message })
        failing = true
      },
    )
  }, intervalMs)
  timer.unref()

  return { latest: (network) => heads.get(network) ?? null, refresh, stop: () => clearInterval(timer) }
}
