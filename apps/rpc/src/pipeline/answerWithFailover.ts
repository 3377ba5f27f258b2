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
import { type Partner, PartnerUnavailableError, type RejectedAnswer } from './partner.js'
import { type PartnerItem, partnerProof } from './partnerProof.js'
import type { Body } from '@uncle-rpc/wire'

/**
 * A message answered with forwarding on: the body (undefined: none), the answers made here by
 * kind (`local`), how many calls the partner answered and how many of those are errors.
 */
export type ForwardedAnswer = { body: Body | undefined; local: Tally; forwarded: number; partnerErrors: number }

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


/** -32603 for a call whose partner answer failed verification against the chain (its data is never passed on). */
function partnerRejectedError(): InternalError {
  return new InternalError(
    "the index cannot answer this call authoritatively and the failover partner's answer failed verification against the chain; try again later",
    { data: { reason: 'verification failed' } },
  )
}

/** Told of each verified forward: whether the partner's answer passed. */
export type OnVerification = (network: string, passed: boolean) => void

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

/** What the partner gave for one forwarded call: its answer object (verified when asked), or the error to answer with. */
type Forwarded = { item: unknown } | { error: InternalError }

/**
 * Sends `calls` to the partner as one batch (ids 0…n−1). With `verify`, each uncle-family call goes
 * as its proof's calls (partnerProof.ts) and is answered only if the proof holds; a failed proof is
 * reported to the partner (its log line and breaker) and to `onVerification`.
 */
async function askPartner(partner: Partner, network: ServedNetwork, calls: readonly ForwardCall[], onVerification: OnVerification | undefined): Promise<Forwarded[]> {
  const verify = network.verifyPartner !== false
  const proofs = calls.map((call) => (verify ? partnerProof(call) : undefined))
  const sent: ForwardCall[] = []
  const firstId = calls.map((call, i) => {
    const at = sent.length
    sent.push(...(proofs[i]?.calls ?? [call]))
    return at
  })
  let outcomes: (Forwarded | undefined)[] = []
  const check = (value: unknown): RejectedAnswer[] => {
    // Note: not a batch answer: nothing to verify; every call gets 'invalid body' (below), and the breaker a failure.
    if (!Array.isArray(value)) return proofs.some((proof) => proof !== undefined) ? [{ method: 'batch', reason: 'the answer to a batch is not an array' }] : []
    const byId = new Map<unknown, unknown>()
    for (const item of value) byId.set((item as { id?: unknown } | null)?.id, item)
    const rejected: RejectedAnswer[] = []
    outcomes = calls.map((call, i) => {
      const proof = proofs[i]
      if (proof === undefined) return undefined
      const outcome = proof.check(proof.calls.map((_, k) => byId.get(firstId[i]! + k)))
      onVerification?.(network.name, outcome.kind === 'answer')
      if (outcome.kind === 'answer') return { item: outcome.item }
      rejected.push({ method: call.method, reason: outcome.reason })
      return { error: partnerRejectedError() }
    })
    return rejected
  }
  let value: unknown
  try {
    ;({ value } = await partner.send('[' + sent.map((call, k) => requestBody(String(k), call.method, call.params)).join(',') + ']', (answer) => check(answer.value)))
  } catch (error) {
    return calls.map(() => ({ error: partnerUnavailableError(error) }))
  }
  if (!Array.isArray(value)) return calls.map(() => ({ error: partnerUnavailableError(new PartnerUnavailableError('invalid body', { details: 'not a batch answer' })) }))
  const byId = new Map<unknown, unknown>()
  for (const item of value) byId.set((item as { id?: unknown } | null)?.id, item)
  return calls.map((_, i) => outcomes[i] ?? { item: byId.get(firstId[i]!) })
}

/** The partner's answer to one call of our batch, rewritten with the caller's id; null when missing or malformed. */
function rebuild(rawId: string, item: unknown | PartnerItem): string | null {
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
export function createAnswerWithFailover({ handler, onVerification }: { handler: JsonRpcHandler<MethodContext>; onVerification?: OnVerification | undefined }): AnswerWithFailover {
  async function single(message: ParsedMessage & { kind: 'single' }, network: ServedNetwork, partner: Partner, options: HandleOptions) {
    let needed: ForwardCall | undefined
    const failover: FailoverPolicy = { kind: 'forward', need: (call) => (needed = call) }
    const local = await handler.answerMessage(message, { network, failover }, options)
    const rawId = message.entry.rawId
    if (needed === undefined || rawId === undefined || local.body === undefined) {
      const { body, ...tally } = local
      return { body, local: tally, forwarded: 0, partnerErrors: 0 }
    }
    if (network.verifyPartner === false || partnerProof(needed) === undefined)
      try {
        const answer = await partner.send(requestBody(rawId, needed.method, needed.params))
        return { body: answer.text, local: none, forwarded: 1, partnerErrors: countErrorAnswers(answer.value) }
      } catch (error) {
        return { body: errorResponse(rawId, partnerUnavailableError(error)), local: oneError, forwarded: 0, partnerErrors: 0 }
      }
    const [forwarded] = await askPartner(partner, network, [needed], onVerification)
    const body = forwarded !== undefined && 'item' in forwarded ? rebuild(rawId, forwarded.item) : null
    if (body === null) {
      const error = forwarded !== undefined && 'error' in forwarded ? forwarded.error : partnerUnavailableError(new PartnerUnavailableError('invalid body'))
      return { body: errorResponse(rawId, error), local: oneError, forwarded: 0, partnerErrors: 0 }
    }
    return { body, local: none, forwarded: 1, partnerErrors: forwarded !== undefined && 'item' in forwarded && isErrorAnswer(forwarded.item) ? 1 : 0 }
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
      const results = await askPartner(partner, network, forward.map((i) => needed[i]!), onVerification)
      forward.forEach((i, k) => {
        const rawId = entries[i]!.rawId!
        const result = results[k]!
        const rebuilt = 'item' in result ? rebuild(rawId, result.item) : null
        if (rebuilt === null) local.errors++
        else {
          forwarded++
          if ('item' in result && isErrorAnswer(result.item)) partnerErrors++
        }
        answers[i] = rebuilt ?? errorResponse(rawId, 'error' in result ? result.error : partnerUnavailableError(new PartnerUnavailableError('invalid body')))
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
