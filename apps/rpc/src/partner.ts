import { BaseError } from '@uncle-rpc/chain'
import type { Logger } from '@uncle-rpc/config'

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

export type BreakerState = 'closed' | 'open' | 'half-open'

/** A network's partner provider behind a timeout and a circuit breaker. */
export type Partner = {
  /** POSTs a JSON-RPC body (no caller headers: only Content-Type) and returns the partner's body text as is. */
  send(body: string): Promise<string>
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
 * A partner client with a circuit breaker: closed → open after `failureThreshold` consecutive
 * failures; open refuses at once (PartnerUnavailableError 'circuit open') for `cooldownMs`; then
 * half-open lets one probe through (the others are refused) — success closes, failure re-opens.
 * Every state change is logged. The URL may carry credentials: logs name only its host.
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
  // Invariants: failures counts consecutive failures while closed; openUntil is set while open;
  // probing is true only in half-open, while the one probe is in flight.
  let state: BreakerState = 'closed'
  let failures = 0
  let openUntil = 0
  let probing = false

  function open(reason: PartnerFailure) {
    const from = state
    state = 'open'
    openUntil = Date.now() + cooldownMs
    probing = false
    log.warn({ msg: 'failover partner circuit open', from, reason, consecutive_failures: failures, cooldown_ms: cooldownMs })
  }

  function succeeded() {
    if (state !== 'closed') log.warn({ msg: 'failover partner circuit closed: partner answers again', from: state })
    state = 'closed'
    failures = 0
    probing = false
  }

  function failed(reason: PartnerFailure) {
    failures++
    if (state === 'half-open' || (state === 'closed' && failures >= failureThreshold)) open(reason)
  }

  /** Whether this call may go out now (moving open → half-open once the cooldown is over). */
  function admit(): boolean {
    if (state === 'closed') return true
    if (state === 'open') {
      if (Date.now() < openUntil) return false
      state = 'half-open'
      log.info({ msg: 'failover partner circuit half-open: probing' })
    }
    if (probing) return false
    probing = true
    return true
  }

  async function request(body: string): Promise<string> {
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
      JSON.parse(text)
    } catch (error) {
      throw new PartnerUnavailableError('invalid body', { cause: error })
    }
    return text
  }

  return {
    get state() {
      return state
    },
    async send(body) {
      if (!admit()) throw new PartnerUnavailableError('circuit open')
      try {
        const text = await request(body)
        succeeded()
        return text
      } catch (error) {
        const reason = error instanceof PartnerUnavailableError ? error.reason : 'network'
        log.debug({ msg: 'failover partner call failed', reason, error: (error as Error).message })
        failed(reason)
        throw error
      }
    },
  }
}
