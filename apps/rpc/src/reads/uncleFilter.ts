import type { Logger } from '@uncle-rpc/config'
import { parseRangeIndexed, rangeIndexedChannel, uncleBlockPrefixes, uncleBlockSpan } from '@uncle-rpc/db/chain'
import { BaseError } from '@uncle-rpc/errors'
import pg from 'pg'
import { HashPrefixSet } from './hashFilter.js'

/**
 * Which blocks have uncles, kept in memory per network, so that a call for a block without any
 * (most calls for unknown hashes) is answered null without a database read. It says "absent"
 * only while it is current: its own connection LISTENs for indexed ranges, it has proven that it
 * hears (a probe notification sent from a second connection came back within the heartbeat), it
 * loaded every network after LISTEN began, and no notification is still being read. Otherwise
 * every block may have uncles and the database is asked, as without a filter.
 */
export type UncleFilter = {
  /** True only when `network`'s block `blockHash` (0x, lowercase) certainly has no uncles indexed. */
  absent(network: string, blockHash: string): boolean
  /** Whether "absent" answers are given now. */
  readonly current: boolean
  /** Blocks with uncles held, and the bytes of their tables (metrics, logs). */
  stats(): { blocks: number; bytes: number }
  /** Connects, LISTENs, probes and loads; resolves once current, once found deaf, or after `waitMs` (it keeps trying meanwhile). */
  start(waitMs?: number): Promise<void>
  stop(): Promise<void>
}

/** The listening connection answers queries but did not hear a probe notification in time. */
export class DeafError extends BaseError {
  constructor(reason: string) {
    super(`null filter does not hear notifications: ${reason}`, { name: 'DeafError' })
  }
}

/** The filter's connection as pg_stat_activity names it. */
export const filterApplicationName = 'uncle-rpc null filter'
/** The connection that sends the filter's probes, as pg_stat_activity names it. */
export const probeApplicationName = 'uncle-rpc null filter probe'
/** The prefix of the channel of a filter's probes: each filter has its own, so no process hears another's. */
const probeChannelPrefix = 'uncle_rpc_filter_probe_'

export type CreateUncleFilterParameters = {
  /**
   * The primary (notifications are not replicated to standbys), directly or through a pooler in
   * session mode: a pooler in transaction mode lends each statement another server connection, so
   * nothing LISTENed is heard, which the probes find.
   */
  url: string
  networks: readonly string[]
  logger: Logger
  /**
   * A probe notification this often, sent from a second connection; one not heard on the listening
   * connection by the next means it does not hear (lost, or behind a transaction pooler). Default 1,000 ms.
   */
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
  let sender: pg.Client | undefined
  // The last probe sent and not heard yet (its payload, a count).
  let awaitedProbe: string | undefined
  let heardProbe: (() => void) | undefined
  let probes = 0
  const probeChannel = `${probeChannelPrefix}${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  // Set once the log has said that probes are not heard where queries are answered (a transaction pooler).
  let toldDeaf = false
  let heartbeat: NodeJS.Timeout | undefined
  let retry: NodeJS.Timeout | undefined
  let failures = 0
  // Notifications are read one after another; while any is unread, nothing is "absent".
  let unread = 0
  let reading: Promise<void> = Promise.resolve()
  let becameCurrent: (() => void) | undefined

  function lost(connection: pg.Client, why: string | DeafError): void {
    if (connection !== client) return
    client = undefined
    current = false
    awaitedProbe = undefined
    clearInterval(heartbeat)
    connection.end().catch(() => undefined)
    sender?.end().catch(() => undefined)
    sender = undefined
    if (stopped) return
    failures++
    const delayMs = Math.min(30_000, 500 * 2 ** Math.min(failures - 1, 6))
    if (why instanceof DeafError) {
      // Note: queries are answered but notifications are not heard: a pooler in transaction mode, which retrying will not change; said once.
      if (!toldDeaf)
        logger.warn({
          msg: 'null filter off: its connection answers queries but does not hear notifications (a pooler in transaction mode, such as PgBouncer, lends each statement another server connection); every call reads the database. Give it a direct or session-mode URL of the primary in DATABASE_LISTEN_URL',
          error: why.message,
          retry_in_ms: delayMs,
        })
      else logger.debug({ msg: 'null filter: still deaf', retry_in_ms: delayMs })
      toldDeaf = true
      // Note: start() need not wait out its bound for a filter that cannot be current.
      becameCurrent?.()
    } else logger.warn({ msg: 'null filter: connection lost; every unknown hash is read from the database until it is back', error: String(why), retry_in_ms: delayMs })
    retry = setTimeout(connect, delayMs)
    retry.unref()
  }

  function onNotification(connection: pg.Client, message: pg.Notification): void {
    if (message.channel === probeChannel) {
      if (message.payload === awaitedProbe) {
        awaitedProbe = undefined
        heardProbe?.()
      }
      return
    }
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

  /**
   * Sends a probe from `from`; resolves once the listening connection heard it, rejects with
   * DeafError after `withinMs` if given (the heartbeat checks at its next tick instead).
   */
  function probe(from: pg.Client, withinMs?: number): Promise<void> {
    const payload = String(++probes)
    awaitedProbe = payload
    return new Promise<void>((resolve, reject) => {
      const timer =
        withinMs === undefined ? undefined : setTimeout(() => reject(new DeafError(`a probe notification was not heard within ${withinMs} ms`)), withinMs)
      heardProbe = () => {
        clearTimeout(timer)
        resolve()
      }
      from.query('select pg_notify($1, $2)', [probeChannel, payload]).catch((error: unknown) => {
        clearTimeout(timer)
        reject(error as Error)
      })
    })
  }

  const open = (applicationName: string) =>
    new pg.Client({ connectionString: url, application_name: applicationName, keepAlive: true, connectionTimeoutMillis: 10_000, query_timeout: queryTimeoutMs })

  function connect(): void {
    if (stopped) return
    const connection = open(filterApplicationName)
    const from = open(probeApplicationName)
    client = connection
    sender = from
    connection.on('error', (error) => lost(connection, error.message))
    connection.on('end', () => lost(connection, 'connection closed'))
    connection.on('notification', (message) => onNotification(connection, message))
    from.on('error', (error) => lost(connection, `probe connection: ${error.message}`))
    from.on('end', () => lost(connection, 'probe connection closed'))
    void (async () => {
      await Promise.all([connection.connect(), from.connect()])
      // Note: LISTEN before loading, so a range committed during the load is notified, not missed.
      await connection.query(`listen ${rangeIndexedChannel}; listen ${pg.escapeIdentifier(probeChannel)}`)
      // Note: proven to hear before loading: behind a transaction pooler the load would be wasted.
      await probe(from, Math.max(heartbeatMs, 1000))
      const started = performance.now()
      await load(connection)
      if (connection !== client) return
      current = true
      failures = 0
      if (toldDeaf) logger.info({ msg: 'null filter: notifications heard again' })
      toldDeaf = false
      const { blocks, bytes } = stats()
      logger.info({ msg: 'null filter loaded', blocks_with_uncles: blocks, table_mb: Math.round(bytes / 1e5) / 10, ms: Math.round(performance.now() - started) })
      heartbeat = setInterval(() => {
        // Note: a filter that heard before and then misses a probe lost its connection or its LISTEN; not the pooler case, which never hears.
        if (awaitedProbe !== undefined) return lost(connection, `no probe notification heard within ${heartbeatMs} ms`)
        // Note: the bound is the next tick's check above; only a failed send is handled here.
        probe(from).catch((error: unknown) => lost(connection, (error as Error).message))
      }, heartbeatMs)
      heartbeat.unref()
      becameCurrent?.()
    })().catch((error: unknown) => lost(connection, error instanceof DeafError ? error : (error as Error).message))
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
      await Promise.all([connection?.end().catch(() => undefined), sender?.end().catch(() => undefined)])
      sender = undefined
    },
  }
}
