import { Redis, type RedisOptions, SentinelConnector } from 'ioredis'
import { fastStringMethods } from './fastStringMethods.js'
import type { Logger } from './logger.js'
import { parseRedisUrl, type RedisTarget } from './redisUrl.js'

// The one place Redis clients are made (ioredis, and BullMQ's through the options it is given):
// the target from REDIS_URL, what every client does on a failover, and each user's own tuning.

// Note: ioredis has loaded by now, and its String subclass with it (fastStringMethods.ts).
fastStringMethods()

/** ioredis options (replies mapped the classic way: ioredis 6's default, which BullMQ expects). */
export type RedisTuning = Omit<RedisOptions, 'replyMapping'>
/** ioredis options plus `url` (a redis:// URL for ioredis to read): what BullMQ's `connection` takes. */
export type RedisConnectionOptions = RedisTuning & { url?: string }

/** BullMQ workers: a command waits through any reconnect (BullMQ requires it of a Worker's connection). */
export const workerTuning: RedisTuning = { maxRetriesPerRequest: null }

/**
 * Queue producers and readers: while disconnected a command fails at once instead of waiting in
 * ioredis's offline queue (BullMQ's production guide), and one unanswered for 10 s (a frozen or
 * cut-off server) fails too, so a planning pass says so instead of hanging; the planner and
 * metrics retry on their own.
 */
export const producerTuning: RedisTuning = { enableOfflineQueue: false, commandTimeout: 10_000 }

/**
 * One-shot commands (status, the check of `start`): one connection attempt, 3 s, then an error;
 * a command unanswered for 3 s (a frozen Redis accepts the connection and never replies) fails too.
 */
export const oneShotTuning: RedisTuning = {
  maxRetriesPerRequest: 1,
  connectTimeout: 3_000,
  commandTimeout: 3_000,
  retryStrategy: () => null,
  sentinelRetryStrategy: () => null,
}

/**
 * ioredis's reconnectOnError for a target: 1 = reconnect, 2 = reconnect and send the command again.
 * - READONLY: the server is a replica now (a primary demoted by a failover while we stayed
 *   connected, or a managed endpoint that moved). The write did not run, so under Sentinel it is
 *   sent again to the primary the sentinels name. With one server (no sentinels to ask) it is
 *   reconnected but the error stands, so a REDIS_URL that names a replica is seen, not retried forever.
 * - UNBLOCKED: Redis cut a blocking command (BullMQ's wait for jobs) as it turned into a replica
 *   (bullmq #648); nothing was taken. Under Sentinel the wait is sent again to the new primary;
 *   with one server the error stands (BullMQ's worker loop waits again after it).
 */
function reconnectOnErrorFor(kind: RedisTarget['kind']) {
  return (error: Error): boolean | 1 | 2 => {
    if (error.message.startsWith('READONLY') || error.message.startsWith('UNBLOCKED')) return kind === 'sentinel' ? 2 : 1
    return false
  }
}

/**
 * ioredis's SentinelConnector, whose failover detector (its subscriptions to the sentinels) ends
 * with the connection it watches. Note: ioredis 6.0 ends them on disconnect() only, not when a
 * client quit()s (as BullMQ's do on close): the sockets left open kept an indexer from exiting
 * once done (ioredis #1362, fixed upstream after 6.0.0 by #2198 the same way).
 */
class SentinelConnectorEndingDetector extends SentinelConnector {
  // Note: ioredis makes a Connector from the client's options, typed `unknown` there.
  constructor(options: unknown) {
    super(options as ConstructorParameters<typeof SentinelConnector>[0])
  }

  override async connect(...args: Parameters<SentinelConnector['connect']>): ReturnType<SentinelConnector['connect']> {
    const stream = await super.connect(...args)
    // Note: the detector of this connection (a reconnect makes its own); private in ioredis's types.
    stream.once('close', () => (this as unknown as { failoverDetector: { cleanup(): void } | null }).failoverDetector?.cleanup())
    return stream
  }
}

/** ioredis (and BullMQ) options for `target` (a parsed REDIS_URL, or the URL) with the caller's `tuning` on top. */
export function redisOptions(target: RedisTarget | string, tuning: RedisTuning = {}): RedisConnectionOptions {
  const t = typeof target === 'string' ? parseRedisUrl(target) : target
  const reconnectOnError = reconnectOnErrorFor(t.kind)
  if (t.kind === 'server') return { url: t.url, reconnectOnError, ...tuning }
  return {
    sentinels: t.sentinels.map(({ host, port }) => ({ host, port })),
    name: t.masterName,
    db: t.db,
    ...(t.username === undefined ? {} : { username: t.username }),
    ...(t.password === undefined ? {} : { password: t.password }),
    ...(t.sentinelUsername === undefined ? {} : { sentinelUsername: t.sentinelUsername }),
    ...(t.sentinelPassword === undefined ? {} : { sentinelPassword: t.sentinelPassword }),
    ...(t.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
    // Note: subscribes to the sentinels' +switch-master and drops the connection at once on a
    // failover, so a client still connected to a primary that is cut off (not dead) does not wait
    // for TCP to notice; a dead primary's connections close by themselves.
    failoverDetector: true,
    Connector: SentinelConnectorEndingDetector,
    reconnectOnError,
    ...tuning,
  }
}

/** A Redis client for `target` (a parsed REDIS_URL, or the URL) with the caller's `tuning`. */
export function createRedisClient(target: RedisTarget | string, tuning: RedisTuning = {}): Redis {
  const { url, ...options } = redisOptions(target, tuning)
  return url === undefined ? new Redis(options) : new Redis(url, options)
}

/**
 * Once `client` is connected, reads Redis' maxmemory-policy and logs one warning unless it is
 * `noeviction`: an evicting Redis may drop job, lock, lease and rate-limit keys under memory
 * pressure (BullMQ's production guide). CONFIG may be disabled or renamed (managed Redis): then
 * nothing is said but a debug line.
 */
export function warnUnlessNoEviction(client: Redis, logger: Logger): void {
  const check = async () => {
    try {
      const reply: unknown = await client.config('GET', 'maxmemory-policy')
      const policy = Array.isArray(reply) ? reply[1] : (reply as Record<string, unknown> | null)?.['maxmemory-policy']
      if (typeof policy !== 'string') {
        logger.debug({ msg: 'Redis did not say its maxmemory-policy; not checked' })
        return
      }
      if (policy !== 'noeviction')
        logger.warn({
          msg: `Redis maxmemory-policy is "${policy}", not "noeviction": under memory pressure Redis may evict job queues, leases and rate-limit counts; set maxmemory-policy noeviction`,
          maxmemory_policy: policy,
        })
    } catch (error) {
      logger.debug({ msg: 'could not read Redis maxmemory-policy (CONFIG disabled or renamed?); not checked', error: (error as Error).message })
    }
  }
  if (client.status === 'ready') void check()
  else client.once('ready', () => void check())
}
