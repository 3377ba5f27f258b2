import type { FailoverPolicy } from './failoverPolicy.js'

export type { BlockKnown, FindUncle, FoundUncle } from '../reads/lookup.js'
export { LookupCancel } from '../reads/lookup.js'

// What the methods receive (from the transport) and read through (from the store): the types the
// rest of the app shares with them.

/**
 * A network this server answers for: its name (a DNS label), the confirmation depth used for
 * caching, the partner provider that failover forwarding sends to, if any, its chain id
 * (eth_chainId, net_version; the config always has one) and the host names configured for it.
 */
export type ServedNetwork = Readonly<{
  name: string
  confirmations: number
  partnerUrl?: string | undefined
  chainId?: number | undefined
  /** The host names that address this network (lowercase, no port); absent: the Host's first label does (network.ts). */
  hosts?: readonly string[] | undefined
  /** Whether the partner's answers are verified against the chain (pipeline/partnerProof.ts); absent = true. */
  verifyPartner?: boolean | undefined
}>

/**
 * What every method receives from the transport: the network the request was addressed to and,
 * per key, what to do when the index cannot answer (no policy: the failure is an internal error).
 */
export type MethodContext = { network: ServedNetwork; failover?: FailoverPolicy | undefined }
