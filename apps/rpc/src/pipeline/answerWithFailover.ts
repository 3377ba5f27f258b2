import {
  batchBody,
  bodyText,
  errorObjectResponse,
  errorResponse,
  type HandleOptions,
  InternalError,
  type JsonRpcHandler,
  type ParsedMessage,
  requestBody,
  resultResponse,
  type Tally,
} from '@uncle-rpc/jsonrpc'
import type { MethodContext, ServedNetwork } from '../methods/context.js'
import type { FailoverPolicy, ForwardCall } from '../methods/failoverPolicy.js'
import { type Partner, PartnerUnavailableError } from './partner.js'

/**
 * A message answered with forwarding on: the body (undefined: none), the answers made here by
 * kind (`local`), how many calls the partner answered and how many of those are errors.
 */
export type ForwardedAnswer = { body: string | Uint8Array | undefined; local: Tally; forwarded: number; partnerErrors: number }

// The local tallies of a forwarded call (none: the partner answered it) and of a failed forward.
const none: Readonly<Tally> = Object.freeze({ found: 0, nulls: 0, errors: 0 })
const oneError: Readonly<Tally> = Object.freeze({ found: 0, nulls: 0, errors: 1 })

export type AnswerWithFailover = (
  message: ParsedMessage,
  network: ServedNetwork,
  partner: Partner,
  options: HandleOptions,
) => Promise<ForwardedAnswer>

/** -32603 for a call that needed the partner when the partner could not answer. */
export function partnerUnavailableError(error: unknown): InternalError {
  const reason = error instanceof PartnerUnavailableError ? error.reason : 'network'
  return new InternalError(
    'the index cannot answer this call authoritatively and the failover partner is unavailable right now; try again later',
    { data: { reason } },
  )
}


/** Whether one answer object (parsed) is a JSON-RPC error. */
function isErrorAnswer(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false
  const error = (item as { error?: unknown }).error
  return typeof error === 'object' && error !== null
}

/** Error answers in a partner's parsed body: one per error object, in a batch or alone. */
export function countErrorAnswers(value: unknown): number {
  return Array.isArray(value) ? value.filter(isErrorAnswer).length : isErrorAnswer(value) ? 1 : 0
}

/** The partner's answer to one call of our batch, rewritten with the caller's id; null when missing or malformed. */
function rebuild(rawId: string, item: unknown): string | null {
  if (typeof item !== 'object' || item === null) return null
  const answer = item as Record<string, unknown>
  if (Object.hasOwn(answer, 'result')) return resultResponse(rawId, answer.result)
  if (typeof answer.error === 'object' && answer.error !== null) return errorObjectResponse(rawId, answer.error)
  return null
}

/**
 * Answers a message for a key with failover on. Every call first runs locally with a `forward`
 * policy; the calls the index could not answer authoritatively go to the partner:
 * - a single call is sent with the caller's id and the partner's body is returned as is;
 * - in a batch, only those entries go, as one batch with ids 0…n−1; each answer is put back in
 *   its entry's place with the caller's id (result/error re-serialized), the rest stay local.
 * A partner failure turns just those calls into -32603 errors (partnerUnavailableError).
 * Notifications are never forwarded.
 */
export function createAnswerWithFailover({ handler }: { handler: JsonRpcHandler<MethodContext> }): AnswerWithFailover {
  async function single(message: ParsedMessage & { kind: 'single' }, network: ServedNetwork, partner: Partner, options: HandleOptions) {
    let needed: ForwardCall | undefined
    const failover: FailoverPolicy = { kind: 'forward', need: (call) => (needed = call) }
    const local = await handler.answerMessage(message, { network, failover }, options)
    const rawId = message.entry.rawId
    if (needed === undefined || rawId === undefined || local.body === undefined) {
      const { body, ...tally } = local
      return { body, local: tally, forwarded: 0, partnerErrors: 0 }
    }
    try {
      const answer = await partner.send(requestBody(rawId, needed.method, needed.params))
      return { body: answer.text, local: none, forwarded: 1, partnerErrors: countErrorAnswers(answer.value) }
    } catch (error) {
      return { body: errorResponse(rawId, partnerUnavailableError(error)), local: oneError, forwarded: 0, partnerErrors: 0 }
    }
  }

  async function batch(message: ParsedMessage & { kind: 'batch' }, network: ServedNetwork, partner: Partner, options: HandleOptions) {
    const { entries } = message
    const limit = options.maxBatchSize ?? Number.POSITIVE_INFINITY
    if (entries.length === 0 || entries.length > limit) {
      const { body, ...tally } = await handler.answerMessage(message, { network }, options)
      return { body, local: tally, forwarded: 0, partnerErrors: 0 }
    }
    const needed: (ForwardCall | undefined)[] = new Array<ForwardCall | undefined>(entries.length)
    const locals = await Promise.all(
      entries.map((entry, i) => {
        const failover: FailoverPolicy = { kind: 'forward', need: (call) => (needed[i] = call) }
        return handler.answerMessage({ kind: 'single', entry }, { network, failover }, options)
      }),
    )
    const answers = locals.map((local) => (local.body === undefined ? undefined : bodyText(local.body)))
    const forward = answers.flatMap((answer, i) => (needed[i] !== undefined && answer !== undefined && entries[i]!.rawId !== undefined ? [i] : []))
    const forwardedEntries = new Set(forward)
    const local: Tally = { found: 0, nulls: 0, errors: 0 }
    locals.forEach((answer, i) => {
      if (forwardedEntries.has(i)) return
      local.found += answer.found
      local.nulls += answer.nulls
      local.errors += answer.errors
    })
    let forwarded = 0
    let partnerErrors = 0
    if (forward.length > 0) {
      let items: unknown[] | Error
      try {
        const { value } = await partner.send('[' + forward.map((i, k) => requestBody(String(k), needed[i]!.method, needed[i]!.params)).join(',') + ']')
        items = Array.isArray(value) ? value : new PartnerUnavailableError('invalid body', { details: 'not a batch answer' })
      } catch (error) {
        items = error as Error
      }
      const byId = new Map<unknown, unknown>()
      if (!(items instanceof Error)) for (const item of items) byId.set((item as { id?: unknown } | null)?.id, item)
      forward.forEach((i, k) => {
        const rawId = entries[i]!.rawId!
        const item = items instanceof Error ? undefined : byId.get(k)
        const rebuilt = items instanceof Error ? null : rebuild(rawId, item)
        if (rebuilt === null) local.errors++
        else {
          forwarded++
          if (isErrorAnswer(item)) partnerErrors++
        }
        answers[i] = rebuilt ?? errorResponse(rawId, partnerUnavailableError(items instanceof Error ? items : new PartnerUnavailableError('invalid body')))
      })
    }
    return { body: batchBody(answers), local, forwarded, partnerErrors }
  }

  return async (message, network, partner, options) => {
    if (message.kind === 'single') return single(message, network, partner, options)
    if (message.kind === 'batch') return batch(message, network, partner, options)
    const { body, ...tally } = await handler.answerMessage(message, { network }, options)
    return { body, local: tally, forwarded: 0, partnerErrors: 0 }
  }
}
