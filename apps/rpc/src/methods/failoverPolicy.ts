import { InternalError } from '@uncle-rpc/jsonrpc'

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
