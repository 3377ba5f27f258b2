import type { Logger } from '@uncle-rpc/config'
import { parseRangeIndexed, rangeIndexedChannel, uncleBlockPrefixes, uncleBlockSpan } from '@uncle-rpc/db'
import pg from 'pg'
import { HashPrefixSet } from './hashFilter.js'

/**
 * Which blocks have uncles, kept in memory per network, so that a call for a block without any
 * (most calls for unknown hashes) is answered null without a database read. It says "absent"
 * only while it is current: its own connection LISTENs for indexed ranges, it loaded every
 * network after LISTEN began, and no notification is still being read. Otherwise every block may
 * have uncles and the database is asked, as without a filter.
 */
export type UncleFilter = {
  /** True only when `network`'s block `blockHash` (0x, lowercase) certainly has no uncles indexed. */
  absent(network: string, blockHash: string): boolean
  /** Whether "absent" answers are given now. */
  readonly current: boolean
  /** Blocks with uncles held, and the bytes of their tables (metrics, logs). */
  stats(): { blocks: number; bytes: number }
  /** Connects, LISTENs and loads; resolves once current, or after `waitMs` (it keeps trying meanwhile). */
  start(waitMs?: number): Promise<void>
  stop(): Promise<void>
}

/** The filter's connection as pg_stat_activity names it. */
export const filterApplicationName = 'uncle-rpc null filter'

export type CreateUncleFilterParameters = {
  /** The primary (notifications are not replicated to standbys). */
  url: string
  networks: readonly string[]
  logger: Logger
  /** A `select 1` this often on the listening connection; one unanswered by the next means the connection is lost. Default 1,000 ms. */
  heartbeatMs?: number
  /** Each statement of the filter's connection gives up after this long. Default 30,000 ms (a load reads 8 bytes per block with uncles). */
  queryTimeoutMs?: number
  /** Blocks per loading statement. Default 1,000,000. */
  loadChunk?: bigint
}

export function createUncleFilter({
  url,
  networks,
  logger,
  heartbeatMs = 1_000,
  queryTimeoutMs = 30_000,
  loadChunk = 1_000_000n,
}: CreateUncleFilterParameters): UncleFilter {
  const sets = new Map(networks.map((n) => [n, new HashPrefixSet()]))
  let current = false
  let stopped = false
  let client: pg.Client | undefined
  let heartbeat: NodeJS.Timeout | undefined
  let retry: NodeJS.Timeout | undefined
  let failures = 0
  // Notifications are read one after another; while any is unread, nothing is "absent".
  let unread = 0
  let reading: Promise<void> = Promise.resolve()
  let becameCurrent: (() => void) | undefined

  function lost(connection: pg.Client, why: string): void {
    if (connection !== client) return
    client = undefined
    current = false
    clearInterval(heartbeat)
    connection.end().catch(() => undefined)
    if (stopped) return
    failures++
    const delayMs = Math.min(30_000, 500 * 2 ** Math.min(failures - 1, 6))
    logger.warn({ msg: 'null filter: connection lost; every unknown hash is read from the database until it is back', error: why, retry_in_ms: delayMs })
    retry = setTimeout(connect, delayMs)
    retry.unref()
  }

  function onNotification(connection: pg.Client, message: pg.Notification): void {
    const range = parseRangeIndexed(message.payload)
    const set = range && sets.get(range.network)
    if (!range || !set) return
    unread++
    reading = reading.then(async () => {
      try {
        set.addPrefixes(await uncleBlockPrefixes(connection, range))
      } catch (error) {
        lost(connection, (error as Error).message)
      } finally {
        unread--
      }
    })
  }

  async function load(connection: pg.Client): Promise<void> {
    for (const [network, set] of sets) {
      const span = await uncleBlockSpan(connection, network)
      if (span === null) continue
      for (let from = span.from; from <= span.to; from += loadChunk) {
        const to = from + loadChunk - 1n < span.to ? from + loadChunk - 1n : span.to
        set.addPrefixes(await uncleBlockPrefixes(connection, { network, from, to }))
      }
    }
  }

  function connect(): void {
    if (stopped) return
    const connection = new pg.Client({
      connectionString: url,
      application_name: filterApplicationName,
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
      query_timeout: queryTimeoutMs,
    })
    client = connection
    connection.on('error', (error) => lost(connection, error.message))
    connection.on('end', () => lost(connection, 'connection closed'))
    connection.on('notification', (message) => onNotification(connection, message))
    void (async () => {
      await connection.connect()
      // Note: LISTEN before loading, so a range committed during the load is notified, not missed.
      await connection.query(`listen ${rangeIndexedChannel}`)
      const started = performance.now()
      await load(connection)
      if (connection !== client) return
      current = true
      failures = 0
      const { blocks, bytes } = stats()
      logger.info({ msg: 'null filter loaded', blocks_with_uncles: blocks, table_mb: Math.round(bytes / 1e5) / 10, ms: Math.round(performance.now() - started) })
      let beating = false
      heartbeat = setInterval(() => {
        if (beating) return lost(connection, `no answer to the heartbeat within ${heartbeatMs} ms`)
        beating = true
        connection.query('select 1').then(
          () => void (beating = false),
          (error: unknown) => lost(connection, (error as Error).message),
        )
      }, heartbeatMs)
      heartbeat.unref()
      becameCurrent?.()
    })().catch((error: unknown) => lost(connection, (error as Error).message))
  }

  function stats() {
    let blocks = 0
    let bytes = 0
    for (const set of sets.values()) {
      blocks += set.size
      bytes += set.bytes
    }
    return { blocks, bytes }
  }

  return {
    absent(network, blockHash) {
      if (!current || unread > 0) return false
      const set = sets.get(network)
      return set !== undefined && !set.hasHex(blockHash)
    },
    get current() {
      return current && unread === 0
    },
    stats,
    start(waitMs = 10_000) {
      const ready = new Promise<void>((resolve) => {
        becameCurrent = resolve
        setTimeout(resolve, waitMs).unref()
      })
      connect()
      return ready
    },
    async stop() {
      stopped = true
      current = false
      clearTimeout(retry)
      clearInterval(heartbeat)
      const connection = client
      client = undefined
      await reading
      await connection?.end().catch(() => undefined)
    },
  }
}
