import type { Hex } from '@uncle-rpc/chain'
import type { UncleAnswer } from '@uncle-rpc/db/chain'
import type { FailoverPolicy } from './failoverPolicy.js'

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

/** A stored uncle's answer as JSON text (keys alphabetical, `totalDifficulty: null`), and the number of the block that includes it. */
export type FoundUncle = UncleAnswer

/**
 * Gives up a lookup not sent yet: a light AbortSignal, one per lookup (AbortController's
 * EventTarget, its listeners and their garbage were 5% of a cold answer's CPU in a profile).
 */
export class LookupCancel {
  aborted = false
  reason: unknown = undefined
  /** Told once, when abort() is called (the store drops the lookup if it is still queued). */
  onAbort: ((reason: unknown) => void) | undefined = undefined

  abort(reason: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    this.onAbort?.(reason)
  }
}

/** The storage lookup behind the method: one primary-key read. A `cancel` aborted before the read is sent drops it. */
export type FindUncle = (params: { network: string; blockHash: Hex; index: number; cancel?: LookupCancel | undefined }) => Promise<FoundUncle | null>

/** Whether the block with this hash is indexed (a known block makes a null answer authoritative). */
export type BlockKnown = (params: { network: string; blockHash: Hex }) => Promise<boolean>
