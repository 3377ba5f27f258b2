import type { Hex } from '@uncle-rpc/chain'
import {
  type CanonicalBlockRef,
  canonicalBlocks,
  insertBlocksWithUncles,
  lockNetworkWrites,
  markRangeIndexed,
  recordReorg,
  setBlocksCanonical,
  unmarkRangeIndexed,
} from '@uncle-rpc/db'
import { BlocksRejectedError, ReorgTooDeepError } from './errors.js'
import { type FetchRangeResult, fetchBlocksByHash, fetchRange, type VerifiedBlock } from './fetchRange.js'
import { UpstreamError } from './upstream/createUpstream.js'
import { type ChainTarget, type ChainWriterDeps, checkLinkage } from './linkage.js'

// Reorg resolution. The node's current chain is the truth: fetch it over the heights in
// question, walk down (by parent hash) while the stored canonical block differs, walk up (by
// number) while the stored block above does not link, then swap the branches in one
// transaction under the network's exclusive write lock, re-checking what the walk saw.

/** Deepest walk in either direction before giving up (reorgs are a few blocks; this is a safety net). */
export const maxReorgWalk = 10_000
const maxAttempts = 5

export type ReconcileResult = {
  /** Rows written to `blocks`. */
  written: number
  /** Stored blocks that stopped being canonical. */
  replaced: number
  /** Heights that got a (new or confirmed) canonical block. */
  from: bigint
  to: bigint
}

type Plan = {
  head: bigint
  /** The node's chain over the heights that change, linked, lowest first. */
  chain: VerifiedBlock[]
}

const maxBigint = 2n ** 63n - 1n

function onlyBlocks(network: string, result: FetchRangeResult): VerifiedBlock[] {
  if (result.rejected.length > 0) throw new BlocksRejectedError(network, result.rejected)
  return result.blocks
}

async function storedAt(deps: ChainWriterDeps, network: string, number: bigint): Promise<CanonicalBlockRef | undefined> {
  const [row] = await canonicalBlocks(deps.db, { network, from: number, to: number })
  return row
}

/** Fetches the node's chain over `[from, to]` and extends it down and up to where the stored chain agrees. */
async function planReconcile(
  deps: ChainWriterDeps,
  target: ChainTarget,
  range: { from: bigint; to: bigint },
): Promise<Plan> {
  const { network } = target
  const head = await deps.upstream.blockNumber()
  const to = range.to < head ? range.to : head
  const from = range.from < to ? range.from : to
  const numbers: bigint[] = []
  for (let n = from; n <= to; n++) numbers.push(n)
  const middle = onlyBlocks(network, await fetchRange(deps.upstream, numbers))
  checkLinkage(network, middle)

  const below: VerifiedBlock[] = []
  let want = (middle[0] as VerifiedBlock).header.parentHash
  for (let h = from - 1n; h >= target.fromBlock; h--) {
    const stored = await storedAt(deps, network, h)
    if (!stored || stored.hash === want) break
    if (below.length >= maxReorgWalk) throw new ReorgTooDeepError(network, from, maxReorgWalk)
    const [block] = onlyBlocks(network, await fetchBlocksByHash(deps.upstream, [{ hash: want, number: h }]))
    below.unshift(block as VerifiedBlock)
    want = (block as VerifiedBlock).header.parentHash
  }

  const above: VerifiedBlock[] = []
  let prev = middle.at(-1) as VerifiedBlock
  for (let h = to + 1n; h <= head; h++) {
    const stored = await storedAt(deps, network, h)
    if (!stored || stored.parentHash === prev.header.hash) break
    if (above.length >= maxReorgWalk) throw new ReorgTooDeepError(network, from, maxReorgWalk)
    const [block] = onlyBlocks(network, await fetchRange(deps.upstream, [h]))
    checkLinkage(network, [prev, block as VerifiedBlock])
    above.push(block as VerifiedBlock)
    prev = block as VerifiedBlock
  }
  return { head, chain: [...below, ...middle, ...above] }
}

/** Applies `plan` under the exclusive lock; `undefined` when the stored chain changed since the walk. */
async function applyPlan(deps: ChainWriterDeps, target: ChainTarget, plan: Plan) {
  const { network } = target
  const chain = plan.chain
  const first = chain[0] as VerifiedBlock
  const last = chain.at(-1) as VerifiedBlock
  const low = first.header.number
  const high = last.header.number
  return deps.db.transaction(async (tx) => {
    await lockNetworkWrites(tx, { network, mode: 'exclusive' })
    const stored = await canonicalBlocks(tx, { network, from: low - 1n, to: high + 1n })
    const byNumber = new Map(stored.map((s) => [s.number, s]))
    // The walk stopped where the stored chain agreed (or had nothing): still so?
    const under = byNumber.get(low - 1n)
    if (under && under.hash !== first.header.parentHash) return undefined
    const over = byNumber.get(high + 1n)
    if (over && over.parentHash !== last.header.hash && high + 1n <= plan.head) return undefined

    const replaced: CanonicalBlockRef[] = []
    for (const block of chain) {
      const s = byNumber.get(block.header.number)
      if (s && s.hash !== block.header.hash) replaced.push(s)
    }
    // Stored blocks above the node's head that do not descend from it are on a dead branch.
    const orphans =
      over && over.parentHash !== last.header.hash
        ? await canonicalBlocks(tx, { network, from: high + 1n, to: maxBigint })
        : []
    replaced.push(...orphans)

    await setBlocksCanonical(tx, { network, hashes: replaced.map((s) => s.hash), canonical: false })
    const result = await insertBlocksWithUncles(tx, { network, blocks: chain })
    if (result.blocks < chain.length)
      await setBlocksCanonical(tx, { network, hashes: chain.map((b) => b.header.hash), canonical: true })
    await markRangeIndexed(tx, { network, from: low, to: high })
    const lastOrphan = orphans.at(-1)
    if (lastOrphan) await unmarkRangeIndexed(tx, { network, from: high + 1n, to: lastOrphan.number })

    const top = replaced.reduce<CanonicalBlockRef | undefined>((a, s) => (a && a.number > s.number ? a : s), undefined)
    if (top) {
      const bottom = replaced.reduce((a, s) => (a.number < s.number ? a : s), top)
      const newHash = chain.find((b) => b.header.number === top.number)?.header.hash ?? null
      await recordReorg(tx, {
        network,
        fromBlock: bottom.number,
        toBlock: top.number,
        depth: replaced.length,
        oldHash: top.hash,
        newHash,
      })
    }
    return { written: result.blocks, replaced, orphans: orphans.length }
  })
}

const short = (hashes: readonly Hex[]) => (hashes.length > 32 ? [...hashes.slice(0, 32), `… ${hashes.length - 32} more`] : hashes)

/**
 * Makes the stored canonical chain agree with the node's around `[from, to]`: replaced blocks
 * are kept but marked not canonical, the node's branch is written, the heights stay marked
 * indexed, and the reorg is recorded (`reorgs`). A reorg deeper than the network's
 * confirmations is logged at error level, and handled all the same.
 */
export async function reconcileRange(
  deps: ChainWriterDeps,
  target: ChainTarget,
  range: { from: bigint; to: bigint },
): Promise<ReconcileResult> {
  for (let attempt = 1; ; attempt++) {
    const plan = await planReconcile(deps, target, range)
    const applied = await applyPlan(deps, target, plan)
    if (!applied) {
      if (attempt >= maxAttempts)
        throw new UpstreamError(`${target.network}: the chain kept changing while resolving a reorg`, { retryable: true })
      continue
    }
    const first = plan.chain[0] as VerifiedBlock
    const last = plan.chain.at(-1) as VerifiedBlock
    if (applied.replaced.length > 0) {
      const fork = applied.replaced.reduce((a, s) => (a < s.number ? a : s.number), applied.replaced[0]?.number ?? 0n)
      const ancestor = plan.chain.find((b) => b.header.number === fork)?.header.parentHash
      const fields = {
        depth: applied.replaced.length,
        from_block: fork.toString(),
        to_block: applied.replaced.reduce((a, s) => (a > s.number ? a : s.number), fork).toString(),
        common_ancestor: ancestor ? { number: (fork - 1n).toString(), hash: ancestor } : undefined,
        node_head: plan.head.toString(),
        orphans_above_head: applied.orphans,
        replaced: short(applied.replaced.map((s) => s.hash)),
        new: short(plan.chain.filter((b) => b.header.number >= fork).map((b) => b.header.hash)),
      }
      if (applied.replaced.length > Number(target.confirmations))
        deps.logger.error({ msg: 'reorg deeper than confirmations', confirmations: Number(target.confirmations), ...fields })
      else deps.logger.info({ msg: 'reorg', ...fields })
    }
    return { written: applied.written, replaced: applied.replaced.length, from: first.header.number, to: last.header.number }
  }
}
