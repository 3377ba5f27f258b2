import type { HashedHeader, Hex } from '@uncle-rpc/chain'
import type { FailoverPolicy } from '../failover/policy.js'
import type { ServedNetwork } from '../transport/network.js'

// What the methods receive (from the transport) and read through (from the store): the types the
// rest of the app shares with them.

/**
 * What every method receives from the transport: the network the request was addressed to and,
 * per key, what to do when the index cannot answer (no policy: the failure is an internal error).
 */
export type MethodContext = { network: ServedNetwork; failover?: FailoverPolicy | undefined }

/** A stored uncle with its RLP `size` and the number of the block that includes it. */
export type FoundUncle = { uncle: HashedHeader & { size: number }; blockNumber: bigint }

/** The storage lookup behind the method: one primary-key read. A `signal` that aborts before the read is sent drops it. */
export type FindUncle = (params: { network: string; blockHash: Hex; index: number; signal?: AbortSignal | undefined }) => Promise<FoundUncle | null>

/** Whether the block with this hash is indexed (a known block makes a null answer authoritative). */
export type BlockKnown = (params: { network: string; blockHash: Hex }) => Promise<boolean>
