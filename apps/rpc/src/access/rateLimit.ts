import { createRedisClient, type Logger, type RedisTarget, warnUnlessNoEviction } from '@uncle-rpc/config'
import type { Redis } from 'ioredis'
import type { KeyRecord } from './auth.js'
import { RedisUnavailableError } from '../errors.js'
import { createLocalLimits } from './localLimits.js'
import { dayOfSecond, decodeRateLimitReply, leaseSize, type RateLimitReply, rateLimitLua } from './rateLimitScript.js'
import { admitted, type RateVerdict, type Refusal } from './rateVerdict.js'
import { createRedisClock } from './redisClock.js'
import { createRedisHealth } from './redisHealth.js'

export type { RateVerdict }

/** Per-second and per-UTC-day limits per key, shared through Redis by every RPC process. */
export type RateLimiter = {
  /** Takes `cost` requests (batch entries) from the key's budgets: a verdict now, or after one Redis round trip. */
  take(key: KeyRecord, cost: number): RateVerdict | Promise<RateVerdict>
  /** Resolves true once Redis is connected, false after `ms` (the limiter then starts failing open). */
  ready(ms: number): Promise<boolean>
  /** Redis answers and limits are shared (false while failing open to per-process limits). */
  readonly shared: boolean
  close(): Promise<void>
}

export type CreateRateLimiterParameters = {
  /** REDIS_URL (one server or Sentinel), or its parsed form. */
  redisUrl: RedisTarget | string
  /** Prefix of every Redis key, e.g. `uncle-rpc:<database name>`: processes sharing it share budgets. */
  prefix: string
  /** Longest wait for a Redis reply; past it the request is decided by the local fallback. Default 200 ms. */
  commandTimeoutMs?: number | undefined
  /** Back-off after a Redis failure (doubling up to maxBackoffMs): Redis is not asked meanwhile. Default 1 s. */
  backoffMs?: number | undefined
  maxBackoffMs?: number | undefined
  /** While Redis is unreachable, an error line at most this often. Default 30 s. */
  logEveryMs?: number | undefined
}

export type RateLimiterDeps = {
  logger: Logger
  /**
   * Calls of a key admitted on a UTC day, from durable storage (usage_daily): the daily count
   * starts from it when Redis has none (Redis lost its data). Absent: from 0.
   */
  admittedOnDay?: ((keyId: number, day: string) => Promise<number>) | undefined
}

/** A request waiting for Redis; `decided` once answered (by Redis, or by the fallback at its deadline). */
type Waiter = { cost: number; resolve: (verdict: RateVerdict) => void; decided: boolean; timer: NodeJS.Timeout | undefined }
type KeyState = {
  key: KeyRecord
  /** Tokens of the current lease, valid until `expiresAt` (local ms), taken in Redis second `second`. */
  tokens: number
  expiresAt: number
  second: number
  /** Refused without asking Redis until `until`. */
  blocked: { until: number; verdict: Refusal } | undefined
  /** Requests waiting for the call in flight (or the next one). */
  queue: Waiter[]
  calling: boolean
}
type LimitedRedis = Redis & { uncleRateLimit(key: string, ...args: number[]): Promise<unknown> }

/**
 * The rate limiter: leases. A process asks Redis (one atomic script) for the tokens its waiting
 * requests need plus a lease (a tenth of the per-second limit, 0 for small limits) and admits
 * later requests from the lease in memory until it runs out or the second ends; unused tokens are
 * given back with the next call. Requests that arrive in the same event-loop turn share one call.
 * So small limits are exact across processes (every request asks Redis) and large ones cost about
 * one round trip per key per tenth of the limit. Once a window is full the key is refused in
 * memory until the second ends (daily: Redis is asked again every second).
 * Redis unreachable or slower than commandTimeoutMs: the limiter fails open to per-process
 * limits (each process enforces the per-second limit on its own; daily limits are not enforced),
 * logs an error at most every logEveryMs, and asks Redis again after a doubling back-off.
 * No request waits longer than commandTimeoutMs from its arrival: past it, it is decided by the
 * fallback (its share of a later grant stays in the lease). A call carries a deadline in Redis's
 * clock (sent + half the timeout, from the offset seen in earlier replies): run later — a frozen
 * Redis that resumes runs what was sent to it meanwhile — it takes nothing, so tokens of a call
 * nobody waits for any more are never charged.
 */
export function createRateLimiter({ logger, admittedOnDay }: RateLimiterDeps, parameters: CreateRateLimiterParameters): RateLimiter {
  const { redisUrl, prefix, commandTimeoutMs = 200, backoffMs = 1000, maxBackoffMs = 10_000, logEveryMs = 30_000 } = parameters
  const redis = createRedisClient(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: Math.max(1000, commandTimeoutMs),
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 10), maxBackoffMs),
  }) as LimitedRedis
  redis.defineCommand('uncleRateLimit', { numberOfKeys: 1, lua: rateLimitLua })
  warnUnlessNoEviction(redis, logger)

  const states = new Map<number, KeyState>()
  const health = createRedisHealth(logger, { backoffMs, maxBackoffMs, logEveryMs })
  const localLimits = createLocalLimits()
  const clock = createRedisClock(commandTimeoutMs)
  const decide = (waiter: Waiter, verdict: RateVerdict) => {
    if (waiter.decided) return
    waiter.decided = true
    clearTimeout(waiter.timer)
    waiter.resolve(verdict)
  }

  // Note: ioredis emits 'error' on every failed (re)connect; an unhandled one would crash the process.
  redis.on('error', (error: Error) => health.down(error))
  // Note: a new connection (Redis back, or a replica promoted by Sentinel) ends the back-off: the
  // next request asks Redis, so limits are shared again at once rather than up to maxBackoffMs later.
  redis.on('ready', () => health.retryNow())

  function fallback(key: KeyRecord, cost: number): RateVerdict {
    health.countFallback()
    return localLimits(key, cost)
  }

  function stateOf(key: KeyRecord): KeyState {
    let state = states.get(key.id)
    if (state === undefined) {
      if (states.size > 100_000) states.clear()
      state = { key, tokens: 0, expiresAt: 0, second: 0, blocked: undefined, queue: [], calling: false }
      states.set(key.id, state)
    }
    // Note: the record is replaced on every key reload; its limits are the ones in force.
    state.key = key
    return state
  }

  /** A verdict from memory, or undefined when Redis must be asked. */
  function fromMemory(state: KeyState, cost: number, now: number): RateVerdict | undefined {
    if (state.tokens >= cost && now < state.expiresAt) {
      state.tokens -= cost
      return admitted
    }
    const { blocked } = state
    if (blocked !== undefined) {
      if (now < blocked.until) {
        if (blocked.verdict.kind === 'rps') blocked.verdict.currentRps += cost
        return blocked.verdict
      }
      state.blocked = undefined
    }
    if (health.backingOff(now)) return fallback(state.key, cost)
    if (redis.status !== 'ready') {
      if (!health.isDown) health.down(new RedisUnavailableError(redis.status))
      return fallback(state.key, cost)
    }
    return undefined
  }

  function refusal(key: KeyRecord, reply: RateLimitReply, cost: number, refusedBefore: number): Refusal {
    if (reply.usedToday + cost > key.requestsPerDay)
      return { ok: false, kind: 'daily', allowedDaily: key.requestsPerDay, retryAfterSeconds: reply.secondsLeftInDay }
    return { ok: false, kind: 'rps', currentRps: reply.used + refusedBefore + cost, allowedRps: key.requestsPerSecond, retryAfterSeconds: 1 }
  }

  function settle(state: KeyState, waiters: Waiter[], reply: RateLimitReply) {
    const { key } = state
    let tokens = reply.granted
    let refused = 0
    for (const waiter of waiters) {
      // Note: a waiter decided by the fallback at its deadline takes nothing: its tokens stay in the lease.
      if (waiter.decided) continue
      if (tokens >= waiter.cost) {
        tokens -= waiter.cost
        decide(waiter, admitted)
      } else {
        decide(waiter, refusal(key, reply, waiter.cost, refused))
        refused += waiter.cost
      }
    }
    const now = Date.now()
    state.tokens = tokens
    state.expiresAt = now + reply.msLeftInSecond
    state.second = reply.second
    if (reply.usedToday >= key.requestsPerDay)
      state.blocked = { until: now + Math.min(1000, reply.secondsLeftInDay * 1000), verdict: refusal(key, reply, 1, refused) }
    else if (reply.used >= key.requestsPerSecond) state.blocked = { until: state.expiresAt, verdict: refusal(key, reply, 1, refused) }
  }

  async function call(state: KeyState) {
    const waiters = state.queue.filter((w) => !w.decided)
    state.queue = []
    if (waiters.length === 0) return finish(state)
    const { key } = state
    const want = waiters.reduce((sum, w) => sum + w.cost, 0) + leaseSize(key.requestsPerSecond, key.requestsPerDay)
    const back = state.tokens
    state.tokens = 0
    const base = `${prefix}:rl:${key.id}`
    const ask = async (given: number, seed: number) => {
      const sentAt = Date.now()
      const reply = decodeRateLimitReply(
        await redis.uncleRateLimit(base, key.requestsPerSecond, key.requestsPerDay, want, given, state.second, seed, clock.deadlineFor(sentAt)),
      )
      clock.note(reply, sentAt)
      return reply
    }
    try {
      let reply = await ask(back, admittedOnDay ? -1 : 0)
      health.up()
      if (reply.granted === -1) {
        const day = dayOfSecond(reply.second)
        const seed = await rebuiltDailyCount(key, day)
        if (seed === undefined) {
          for (const waiter of waiters) decide(waiter, fallback(key, waiter.cost))
          return finish(state)
        }
        // Note: the given-back tokens went back with the first call.
        reply = await ask(0, seed)
      }
      // Note: past its deadline in Redis (our clock estimate was off): nothing taken; decided here.
      if (reply.granted === -2) for (const waiter of waiters) decide(waiter, fallback(key, waiter.cost))
      else settle(state, waiters, reply)
    } catch (error) {
      health.down(error)
      for (const waiter of waiters) decide(waiter, fallback(key, waiter.cost))
    }
    finish(state)
  }

  /** The day's count from usage_daily, or undefined (logged) when the database cannot say. */
  async function rebuiltDailyCount(key: KeyRecord, day: string): Promise<number | undefined> {
    try {
      const admitted = await admittedOnDay!(key.id, day)
      if (admitted > 0) logger.info({ msg: 'rate limiting: daily count rebuilt from usage_daily', key_id: key.id, day, admitted })
      return admitted
    } catch (error) {
      logger.warn({ msg: 'rate limiting: reading the daily count from usage_daily failed; per-process limits meanwhile', error: (error as Error).message })
      return undefined
    }
  }

  function finish(state: KeyState) {
    state.calling = false
    // Requests that arrived during the call: from the new lease (or the block, or the fallback) if possible.
    const later = state.queue
    state.queue = []
    const now = Date.now()
    for (const waiter of later) {
      if (waiter.decided) continue
      const verdict = state.queue.length === 0 ? fromMemory(state, waiter.cost, now) : undefined
      if (verdict === undefined) state.queue.push(waiter)
      else decide(waiter, verdict)
    }
    schedule(state)
  }

  function schedule(state: KeyState) {
    if (state.calling || state.queue.length === 0) return
    state.calling = true
    // Note: setImmediate runs after this turn's I/O callbacks, so their requests share the call.
    setImmediate(() => void call(state))
  }

  function take(key: KeyRecord, cost: number): RateVerdict | Promise<RateVerdict> {
    const state = stateOf(key)
    if (state.queue.length === 0) {
      const verdict = fromMemory(state, cost, Date.now())
      if (verdict !== undefined) return verdict
    }
    return new Promise((resolve) => {
      const waiter: Waiter = { cost, resolve, decided: false, timer: undefined }
      // Note: the bound is per request, from its arrival: a request queued behind a call in flight
      // (or behind the re-check of a Redis that was down) never waits for two calls.
      waiter.timer = setTimeout(() => decide(waiter, fallback(state.key, cost)), commandTimeoutMs)
      state.queue.push(waiter)
      schedule(state)
    })
  }

  return {
    take,
    get shared() {
      return !health.isDown && redis.status === 'ready'
    },
    ready: (ms) =>
      redis.status === 'ready'
        ? Promise.resolve(true)
        : new Promise((resolve) => {
            const onReady = () => {
              clearTimeout(timer)
              resolve(true)
            }
            const timer = setTimeout(() => {
              redis.off('ready', onReady)
              resolve(false)
            }, ms)
            redis.once('ready', onReady)
          }),
    async close() {
      redis.disconnect()
    },
  }
}
