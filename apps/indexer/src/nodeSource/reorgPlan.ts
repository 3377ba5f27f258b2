import { canonicalBlocks, type CanonicalBlockRef } from '@uncle-rpc/db/chain'
import { BlocksRejectedError, ReorgTooDeepError } from '../errors.js'
import { type FetchRangeResult, fetchBlocksByHash, fetchRange, requireFetched, type VerifiedBlock } from './fetchRange.js'
import { type ChainTarget, type ChainWriterDeps, links, runBreak } from '../writing/linkage.js'
import { UpstreamError } from '../upstream/errors.js'
import type { ReorgPlan } from '../writing/writer.js'

// Reorg planning: the node's current chain is the truth. Fetch it over the heights in question,
// walk down (by parent hash) while the stored canonical block is not its parent, walk up (by
// number) while the stored block above does not link; the writer then swaps the branches in one
// transaction, re-checking what the walk saw.

/** Deepest walk in either direction before giving up (reorgs are a few blocks; this is a safety net). */
const maxReorgWalk = 10_000

/** Every block asked for, verified; otherwise the attempt fails (the job retries it). */
function onlyBlocks(network: string, result: FetchRangeResult): VerifiedBlock[] {
  if (result.rejected.length > 0) throw new BlocksRejectedError(network, result.rejected)
  return requireFetched(network, result).blocks
}

async function storedAt(deps: ChainWriterDeps, network: string, number: bigint): Promise<CanonicalBlockRef | undefined> {
  const [row] = await canonicalBlocks(deps.db, { network, from: number, to: number })
  return row
}

/** The node's chain over `[from, to]`, extended down and up to where the stored chain agrees. */
export async function planReorg(deps: ChainWriterDeps, target: ChainTarget, range: { from: bigint; to: bigint }): Promise<ReorgPlan> {
  const { network } = target
  const head = await deps.upstream.blockNumber()
  const to = range.to < head ? range.to : head
  const from = range.from < to ? range.from : to
  const numbers: bigint[] = []
  for (let n = from; n <= to; n++) numbers.push(n)
  const middle = onlyBlocks(network, await fetchRange(deps.upstream, numbers)).sort((a, b) => (a.header.number < b.header.number ? -1 : 1))
  const broken = runBreak(middle.map((b) => b.header))
  if (broken) throw new UpstreamError(`${network}: ${broken} (the node's chain changed while fetching)`)

  const below: VerifiedBlock[] = []
  let lowest = (middle[0] as VerifiedBlock).header
  for (let h = from - 1n; h >= target.fromBlock; h--) {
    const stored = await storedAt(deps, network, h)
    if (!stored || links(stored, lowest)) break
    if (below.length >= maxReorgWalk) throw new ReorgTooDeepError(network, from, maxReorgWalk)
    const [block] = onlyBlocks(network, await fetchBlocksByHash(deps.upstream, [{ hash: lowest.parentHash, number: h }]))
    below.unshift(block as VerifiedBlock)
    lowest = (block as VerifiedBlock).header
  }

  const above: VerifiedBlock[] = []
  let prev = middle.at(-1) as VerifiedBlock
  for (let h = to + 1n; h <= head; h++) {
    const stored = await storedAt(deps, network, h)
    if (!stored || links(prev.header, stored)) break
    if (above.length >= maxReorgWalk) throw new ReorgTooDeepError(network, from, maxReorgWalk)
    const [block] = onlyBlocks(network, await fetchRange(deps.upstream, [h]))
    if (!links(prev.header, (block as VerifiedBlock).header))
      throw new UpstreamError(`${network}: block ${h} does not link to block ${h - 1n} (the node's chain changed while fetching)`)
    above.push(block as VerifiedBlock)
    prev = block as VerifiedBlock
  }
  return { kind: 'reorg', network, head, chain: [...below, ...middle, ...above] }
}
