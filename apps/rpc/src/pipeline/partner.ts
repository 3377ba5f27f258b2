import type { Logger } from '@uncle-rpc/config'
import { BaseError } from '@uncle-rpc/errors'
import { type BreakerState, createBreaker } from '../protection/breaker.js'

/** Why a partner call failed: circuit open (not tried), timeout, HTTP status, network error, or a body that is not JSON. */
export type PartnerFailure = 'circuit open' | 'timeout' | 'http status' | 'network' | 'invalid body'

/** The partner did not answer (or was not asked: circuit open). */
export class PartnerUnavailableError extends BaseError {
  readonly reason: PartnerFailure
  constructor(reason: PartnerFailure, options: { details?: string; cause?: unknown } = {}) {
    super(`failover partner unavailable: ${reason}`, { name: 'PartnerUnavailableError', ...options })
    this.reason = reason
  }
}

/** The partner's answer: its body text as is, and that text parsed (the only parse of it). */
export type PartnerAnswer = { text: string; value: unknown }

/** An answer of the partner that failed verification against the chain (partnerProof.ts): the call's method and why. */
export type RejectedAnswer = { method: string; reason: string }

/** A network's partner provider behind a timeout and a circuit breaker. */
export type Partner = {
  /**
   * POSTs a JSON-RPC body (no caller headers: only Content-Type); a body that is not JSON is a
   * failure. `check` (verified failover) names the answers that failed verification: each is
   * logged, and any counts as a failure of the call for the breaker.
   */
  send(body: string, check?: (answer: PartnerAnswer) => readonly RejectedAnswer[]): Promise<PartnerAnswer>
  readonly state: BreakerState
}

export type CreatePartnerParameters = {
  url: string
  /** Name used in logs (the network). */
  name: string
  /** Whole request (connect, answer, body). Default 1500 ms. */
  timeoutMs?: number | undefined
  /** Consecutive failures that open the circuit. Default 5. */
  failureThreshold?: number | undefined
  /** How long an open circuit refuses calls before one probe is let through. Default 10 s. */
  cooldownMs?: number | undefined
}

export const defaultPartnerTimeoutMs = 1500
export const defaultPartnerFailureThreshold = 5
export const defaultPartnerCooldownMs = 10_000

/**
 * A partner client behind the circuit breaker (breaker.ts): an open circuit refuses at once
 * (PartnerUnavailableError 'circuit open'). Every state change is logged. The URL may carry credentials: logs name only its host.
 */
export function createPartner({ logger }: { logger: Logger }, parameters: CreatePartnerParameters): Partner {
  const {
    url,
    name,
    timeoutMs = defaultPartnerTimeoutMs,
    failureThreshold = defaultPartnerFailureThreshold,
    cooldownMs = defaultPartnerCooldownMs,
  } = parameters
  const log = logger.child({ partner: new URL(url).host, network: name })
  const breaker = createBreaker({
    failureThreshold,
    cooldownMs,
    onChange: ({ from, to, failures, reason }) => {
      if (to === 'open') log.warn({ msg: 'failover partner circuit open', from, reason, consecutive_failures: failures, cooldown_ms: cooldownMs })
      else if (to === 'half-open') log.info({ msg: 'failover partner circuit half-open: probing' })
      else log.warn({ msg: 'failover partner circuit closed: partner answers again', from })
    },
  })

  async function request(body: string): Promise<PartnerAnswer> {
    let response: Response
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (error) {
      const timeout = (error as Error).name === 'TimeoutError'
      throw new PartnerUnavailableError(timeout ? 'timeout' : 'network', { cause: error })
    }
    let text: string
    try {
      text = await response.text()
    } catch (error) {
      throw new PartnerUnavailableError((error as Error).name === 'TimeoutError' ? 'timeout' : 'network', { cause: error })
    }
    if (response.status !== 200) throw new PartnerUnavailableError('http status', { details: `HTTP ${response.status}` })
    try {
      return { text, value: JSON.parse(text) as unknown }
    } catch (error) {
      throw new PartnerUnavailableError('invalid body', { cause: error })
    }
  }

  return {
    get state() {
      return breaker.state
    },
    async send(body, check) {
      if (!breaker.admit()) throw new PartnerUnavailableError('circuit open')
      try {
        const answer = await request(body)
        const rejected = check?.(answer) ?? []
        for (const { method, reason } of rejected) log.warn({ msg: 'failover partner answer failed verification', method, reason })
        if (rejected.length === 0) breaker.succeeded()
        else breaker.failed('verification failed')
        return answer
      } catch (error) {
        const reason = error instanceof PartnerUnavailableError ? error.reason : 'network'
        log.debug({ msg: 'failover partner call failed', reason, error: (error as Error).message })
        breaker.failed(reason)
        throw error
      }
    },
  }
}
