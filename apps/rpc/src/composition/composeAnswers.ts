import { addDailyAndHourlyUsage, admittedOnDay, pruneHourlyUsage } from '@uncle-rpc/db/accounts'
import type { JsonRpcHandler } from '@uncle-rpc/jsonrpc'
import { createRateLimiter, type RateLimiter } from '../access/rateLimit.js'
import { createUsageRecorder, type UsageRecorder } from '../access/usage.js'
import type { MethodContext, ServedNetwork } from '../methods/context.js'
import { type Answer, createAnswer } from '../pipeline/answer.js'
import { createAnswerWithFailover } from '../pipeline/answerWithFailover.js'
import { createPartner, type Partner } from '../pipeline/partner.js'
import type { RpcLimits } from '../transport/limits.js'
import type { RpcServerDeps, RpcServerOptions } from './serverOptions.js'

export type ComposedAnswers = {
  partners: ReadonlyMap<string, Partner>
  limiter: RateLimiter | undefined
  usage: UsageRecorder
  /** One message to its outcome, for HTTP and for WebSocket (the same unless metrics tell them apart). */
  answer: Answer
  answerWs: Answer
}

/**
 * What turns one message into its outcome around the handler: each network's partner for
 * failover, the rate limiter (Redis; absent without rateLimits), usage recording, and answer()
 * per transport.
 */
export function composeAnswers(
  deps: RpcServerDeps,
  options: RpcServerOptions,
  limits: RpcLimits,
  methods: { handler: JsonRpcHandler<MethodContext>; served: ReadonlySet<string> },
): ComposedAnswers {
  const { db, logger, metrics } = deps
  const { handler } = methods
  const partners = new Map<string, Partner>()
  for (const network of options.networks)
    if (network.partnerUrl !== undefined) partners.set(network.name, createPartner({ logger }, { ...options.partner, url: network.partnerUrl, name: network.name }))
  const limiter =
    options.rateLimits === undefined
      ? undefined
      : createRateLimiter({ logger, admittedOnDay: (keyId, day) => admittedOnDay(db, { keyId, day }) }, options.rateLimits)
  const usage = createUsageRecorder(
    {
      store: deps.usageStore ?? {
        write: (batch) => addDailyAndHourlyUsage(db, batch),
        prune: async () => void (await pruneHourlyUsage(db, { days: 35 })),
      },
      logger,
    },
    { flushIntervalMs: options.usageFlushMs },
  )
  const answerDeps = {
    handler,
    answerWithFailover: createAnswerWithFailover({ handler, onVerification: metrics?.partnerVerified }),
    partnerFor: (network: ServedNetwork) => partners.get(network.name),
    limiter,
    usage,
    served: methods.served,
    maxBatchSize: limits.maxBatchSize,
  }
  const answer = createAnswer({ ...answerDeps, metrics: metrics && { metrics, transport: 'http' } })
  const answerWs = metrics === undefined ? answer : createAnswer({ ...answerDeps, metrics: { metrics, transport: 'ws' } })
  return { partners, limiter, usage, answer, answerWs }
}
