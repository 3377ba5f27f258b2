import type { Logger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import type { VerifiedBlock } from './fetchRange.js'
import { type Upstream, UpstreamError } from './upstream/createUpstream.js'

/** What writing blocks to the canonical chain needs. */
export type ChainWriterDeps = { db: Db; upstream: Upstream; logger: Logger }

/** What reorg handling needs to know about a network. */
export type ChainTarget = { network: string; fromBlock: bigint; confirmations: bigint }

/** Throws a retryable error when consecutive blocks do not link by parentHash (the node changed chains mid-fetch). */
export function checkLinkage(network: string, blocks: readonly VerifiedBlock[]): void {
  for (let i = 1; i < blocks.length; i++) {
    const prev = blocks[i - 1] as VerifiedBlock
    const block = blocks[i] as VerifiedBlock
    if (block.header.number !== prev.header.number + 1n || block.header.parentHash !== prev.header.hash)
      throw new UpstreamError(
        `${network}: block ${block.header.number} does not link to block ${prev.header.number} (the node's chain changed while fetching)`,
        { retryable: true },
      )
  }
}
