import { BaseError } from '@uncle-rpc/chain'
import { InternalError } from '@uncle-rpc/jsonrpc'
import { type Breaker, createBreaker } from './breaker.js'

/** A call to send to the partner instead of the local answer: the method and its normalized params. */
export type ForwardCall = { method: string; params: readonly unknown[] }

/**
 * What a method may do when the index cannot answer a call authoritatively (database down or past
 * the deadline, or the block hash not indexed):
 * - `forward`: record the call with `need`; the transport sends it to the network's partner;
 * - `not-allowed`: the key's plan has no failover (the error names the upgrade path);
 * - `off`: the plan allows failover but the key did not turn it on (nor ask with the header);
 * - `no-partner`: failover is on but the network names no partner.
 */
export type FailoverPolicy =
  | { readonly kind: 'forward'; need(call: ForwardCall): void }
  | { readonly kind: 'not-allowed' | 'off' | 'no-partner' }

export type FailoverPolicyKind = FailoverPolicy['kind']

const unavailable = 'the index cannot answer right now (database unavailable or too slow)'

/** The client-visible text per policy; the contract asks for the upgrade hint on plans without failover. */
export const indexUnavailableMessages: Readonly<Record<FailoverPolicyKind, string>> = Object.freeze({
  'not-allowed': `${unavailable}; failover forwarding to a partner provider is available on the Growth and Custom plans (upgrade to Growth, or contact sales for Custom)`,
  off: `${unavailable}; this key's plan includes failover forwarding: send the header "Enable-Failover: true" or turn failover on for the key`,
  'no-partner': `${unavailable} and no failover partner is configured for this network`,
  forward: `${unavailable} and the failover partner did not answer`,
})

/** -32603 for a call the index could not answer (database down or past the deadline); the message depends on the key's failover policy. */
export class IndexUnavailableError extends InternalError {
  override name = 'IndexUnavailableError'
  constructor(kind: FailoverPolicyKind, options: { cause?: unknown } = {}) {
    super(indexUnavailableMessages[kind], options)
  }
}

/** A database read missed its deadline (the read itself goes on; its result is dropped). */
export class DeadlineExceededError extends BaseError {
  constructor(ms: number) {
    super(`database read missed its deadline (${ms} ms without progress)`, { name: 'DeadlineExceededError' })
  }
}

/** Deadlines for database reads that tell a stalled database from a busy pool. */
export type Deadline = <T>(read: Promise<T>) => Promise<T>

/**
 * A read fails with DeadlineExceededError once the database has completed no read (of any
 * caller) for `ms` while it waited, or after `4 × ms` in all. Note: a plain per-read timer would
 * fail the tail of a large cold batch that is merely queued for a pool connection while every
 * other read succeeds; a stalled or cut database completes nothing and fails within `ms`.
 */
export function createDeadline(ms: number): Deadline {
  let lastProgress = 0
  return <T>(read: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const started = Date.now()
      const check = () => {
        const now = Date.now()
        const idle = now - Math.max(started, lastProgress)
        if (idle >= ms || now - started >= 4 * ms) return reject(new DeadlineExceededError(ms))
        timer = setTimeout(check, ms - idle)
      }
      let timer = setTimeout(check, ms)
      read.then(
        (value) => {
          lastProgress = Date.now()
          clearTimeout(timer)
          resolve(value)
        },
        (error: unknown) => {
          clearTimeout(timer)
          reject(error)
        },
      )
    })
}

/** Reads paused: the database failed repeatedly and is not asked until the next probe. */
export class ReadsPausedError extends BaseError {
  constructor(cooldownMs: number) {
    super(`database reads paused after repeated failures (one probe every ${cooldownMs} ms)`, { name: 'ReadsPausedError' })
  }
}

/** A circuit breaker in front of the database reads of the method (breaker.ts). */
export type ReadGate = Pick<Breaker, 'admit' | 'succeeded' | 'failed'>

/**
 * After `failureThreshold` consecutive failed or late reads, no read starts for `cooldownMs`; then
 * one probe goes, and its outcome closes or re-opens the gate. Note: without it, a stalled
 * database (connections hung, not refused) would collect every request's query in the pool's
 * queue for as long as it stalls; with it, the queue holds about one cooldown's worth.
 */
export function createReadGate({ failureThreshold = 5, cooldownMs = 1000 }: { failureThreshold?: number; cooldownMs?: number } = {}): ReadGate {
  return createBreaker({ failureThreshold, cooldownMs })
}
