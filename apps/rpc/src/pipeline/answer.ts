import { otherMethod } from '@uncle-rpc/db/accounts'
import { type Answered, errorResponse, type JsonRpcHandler, LimitExceededError, type ParsedEntry, type ParsedMessage, parseMessage } from '@uncle-rpc/jsonrpc'
import type { KeyRecord } from '../access/auth.js'
import type { AnswerWithFailover } from './answerWithFailover.js'
import type { FailoverPolicy } from '../methods/failoverPolicy.js'
import type { RpcMetrics, Transport } from '../metrics.js'
import type { MethodContext, ServedNetwork } from '../methods/context.js'
import type { Partner } from './partner.js'
import type { RateLimiter, RateVerdict } from '../access/rateLimit.js'
import type { MessageMethods, UsageRecorder } from '../access/usage.js'
import type { Body } from '@uncle-rpc/wire'

/** What to send back for one message: HTTP status, body (text, or a cached answer's response in parts; '' = none) and the extra headers. */
export type Outcome = {
  status: number
  body: Body
  /** Seconds for Retry-After (429 only). */
  retryAfter?: number | undefined
  /** The partner answered at least one call (X-Failover: partner). */
  failover?: boolean | undefined
}

/** Answers one message (an HTTP body or a WebSocket message) for an authenticated key; a value when nothing had to wait (a cache hit). */
export type Answer = (text: string, key: KeyRecord, network: ServedNetwork, enableFailover: boolean) => Outcome | Promise<Outcome>

export type AnswerDeps = {
  handler: JsonRpcHandler<MethodContext>
  answerWithFailover: AnswerWithFailover
  /** The network's partner (its partnerUrl), if any. */
  partnerFor: (network: ServedNetwork) => Partner | undefined
  /** Absent: no rate limits. */
  limiter?: RateLimiter | undefined
  usage: UsageRecorder
  /** The names of the methods served: usage per method keeps these, any other name counts as `otherMethod`. */
  served: ReadonlySet<string>
  /** The server's batch limit (--max-batch-size); a key's own may be lower. */
  maxBatchSize: number
  /** Absent: metrics off (no hook runs). */
  metrics?: { metrics: RpcMetrics; transport: Transport } | undefined
}

/** The -32005 body for a refused message (id of a single request, else null). */
export function rateLimitedBody(rawId: string, verdict: RateVerdict & { ok: false }): string {
  const error =
    verdict.kind === 'rps'
      ? new LimitExceededError('project ID request rate exceeded', {
          data: { current_rps: verdict.currentRps, allowed_rps: verdict.allowedRps, backoff_seconds: verdict.retryAfterSeconds },
        })
      : new LimitExceededError('daily request count exceeded, request rate limited', {
          data: { allowed_daily: verdict.allowedDaily, backoff_seconds: verdict.retryAfterSeconds },
        })
  return errorResponse(rawId, error)
}

const policies = {
  'not-allowed': { kind: 'not-allowed' },
  off: { kind: 'off' },
  'no-partner': { kind: 'no-partner' },
} as const satisfies Record<string, FailoverPolicy>

/**
 * The per-message flow shared by HTTP and WebSocket: parse; cost = batch entries (1 for a single
 * call, an unparseable body, an empty or too large batch); rate limits (429); then the handler,
 * or forwarding when the key's plan allows failover, it is on (key setting or `Enable-Failover`)
 * and the network has a partner; usage is counted in memory, with the error answers
 * counted where each answer is made (never by reading the body back).
 */
export function createAnswer(deps: AnswerDeps): Answer {
  const { handler, answerWithFailover, partnerFor, limiter, usage } = deps
  // Note: name → the registry's own string, so the recorder compares a message's method to the last one by reference.
  const served = new Map([...deps.served].map((name) => [name, name]))
  const { metrics, transport = 'http' } = deps.metrics ?? {}
  const count = (key: KeyRecord, network: ServedNetwork, methods: MessageMethods, requests: number, errors: number, forwarded: number, rateLimited: number) => {
    usage.add(key.id, network.name, requests, errors, forwarded, rateLimited, methods)
  }

  /** The method a call names when it is served here, else otherMethod (an invalid request naming one counts under it). */
  function methodOf(entry: ParsedEntry): string {
    const { value } = entry
    const method = typeof value === 'object' && value !== null ? (value as { method?: unknown }).method : undefined
    return (typeof method === 'string' && served.get(method)) || otherMethod
  }

  /** The methods of a message's `cost` calls: a batch answered entry by entry has a call per entry; anything else is one call. */
  function methodsOf(message: ParsedMessage, cost: number): MessageMethods {
    if (message.kind === 'single') return methodOf(message.entry)
    if (message.kind !== 'batch' || cost !== message.entries.length) return otherMethod
    const first = methodOf(message.entries[0]!)
    let calls: Map<string, number> | undefined
    for (let i = 1; i < message.entries.length; i++) {
      const method = methodOf(message.entries[i]!)
      if (calls === undefined) {
        if (method === first) continue
        calls = new Map([[first, i]])
      }
      calls.set(method, (calls.get(method) ?? 0) + 1)
    }
    // Note: a batch of one method (the usual case) is counted as a single call is, with no Map made.
    return calls ?? first
  }
  // Contexts without per-request state, made once per network and policy.
  const contexts = new Map<string, Record<keyof typeof policies, MethodContext>>()
  const contextsFor = (network: ServedNetwork) => {
    let byPolicy = contexts.get(network.name)
    if (byPolicy === undefined) {
      byPolicy = {
        'not-allowed': { network, failover: policies['not-allowed'] },
        off: { network, failover: policies.off },
        'no-partner': { network, failover: policies['no-partner'] },
      }
      contexts.set(network.name, byPolicy)
    }
    return byPolicy
  }

  function costOf(message: ParsedMessage, maxBatchSize: number): number {
    if (message.kind !== 'batch') return 1
    const n = message.entries.length
    return n === 0 || n > maxBatchSize ? 1 : n
  }

  /** The message past the rate limits: forwarding when the key and network allow it, else the handler. */
  function admitted(message: ParsedMessage, cost: number, methods: MessageMethods, maxBatchSize: number, key: KeyRecord, network: ServedNetwork, enableFailover: boolean, started: number): Outcome | Promise<Outcome> {
    if (key.failoverAllowed && (key.failover || enableFailover)) {
      const partner = partnerFor(network)
      if (partner !== undefined)
        return answerWithFailover(message, network, partner, { maxBatchSize }).then(({ body, local, forwarded, partnerErrors }) => {
          count(key, network, methods, cost, local.errors + partnerErrors, forwarded, 0)
          metrics?.answered(network.name, transport, local, forwarded, (performance.now() - started) / 1000)
          return { status: 200, body: body ?? '', failover: forwarded > 0 }
        })
    }
    const byPolicy = contextsFor(network)
    const context = !key.failoverAllowed ? byPolicy['not-allowed'] : key.failover || enableFailover ? byPolicy['no-partner'] : byPolicy.off
    const finish = (answered: Answered): Outcome => {
      count(key, network, methods, cost, answered.errors, 0, 0)
      metrics?.answered(network.name, transport, answered, 0, (performance.now() - started) / 1000)
      return { status: 200, body: answered.body ?? '' }
    }
    // Note: bytes: a cached answer's bytes are copied into the response, not re-encoded from text.
    const answered = handler.answerMessage(message, context, { maxBatchSize, bytes: true })
    return answered instanceof Promise ? answered.then(finish) : finish(answered)
  }

  function refused(message: ParsedMessage, cost: number, methods: MessageMethods, key: KeyRecord, network: ServedNetwork, verdict: RateVerdict & { ok: false }, started: number): Outcome {
    count(key, network, methods, cost, cost, 0, cost)
    metrics?.rateLimited(network.name, transport, key.plan, cost, (performance.now() - started) / 1000)
    const rawId = message.kind === 'single' ? (message.entry.rawId ?? 'null') : 'null'
    return { status: 429, body: rateLimitedBody(rawId, verdict), retryAfter: verdict.retryAfterSeconds }
  }

  // Note: no async function on the way: a cache hit under a lease is answered without a promise.
  return (text, key, network, enableFailover) => {
    const started = metrics === undefined ? 0 : performance.now()
    const message = parseMessage(text)
    const maxBatchSize = Math.min(deps.maxBatchSize, key.maxBatchSize)
    const cost = costOf(message, maxBatchSize)
    const methods = methodsOf(message, cost)
    if (limiter === undefined) return admitted(message, cost, methods, maxBatchSize, key, network, enableFailover, started)
    const decide = (verdict: RateVerdict) =>
      verdict.ok
        ? admitted(message, cost, methods, maxBatchSize, key, network, enableFailover, started)
        : refused(message, cost, methods, key, network, verdict, started)
    const taken = limiter.take(key, cost)
    return taken instanceof Promise ? taken.then(decide) : decide(taken)
  }
}
