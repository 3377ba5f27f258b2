import {
  CanonicalBlockConflictError,
  type CanonicalBlockRef,
  canonicalBlocks,
  insertBlocksWithUncles,
  lockNetworkWrites,
  markRangeIndexed,
  setBlocksCanonical,
} from '@uncle-rpc/db'
import type { VerifiedBlock } from './fetchRange.js'
import { type ChainTarget, type ChainWriterDeps, checkLinkage } from './linkage.js'
import { type ReconcileResult, reconcileRange } from './reconcile.js'

export type WriteLinkedBlocksReturnType = {
  /** Rows written to `blocks` (already stored ones are skipped). */
  written: number
  /** Set when the write met another branch and a reorg was resolved instead. */
  reconciled?: ReconcileResult
}

/** Why `blocks` cannot sit among the stored canonical blocks `stored` (around and inside them), if so. */
function mismatch(stored: readonly CanonicalBlockRef[], blocks: readonly VerifiedBlock[]): string | undefined {
  const first = blocks[0] as VerifiedBlock
  const last = blocks.at(-1) as VerifiedBlock
  const byNumber = new Map(blocks.map((b) => [b.header.number, b.header.hash]))
  for (const s of stored) {
    if (s.number === first.header.number - 1n && s.hash !== first.header.parentHash)
      return `stored block ${s.number} is not the parent of block ${first.header.number}`
    if (s.number === last.header.number + 1n && s.parentHash !== last.header.hash)
      return `stored block ${s.number} is not a child of block ${last.header.number}`
    const own = byNumber.get(s.number)
    if (own !== undefined && own !== s.hash) return `another block is stored at ${s.number}`
  }
  return undefined
}

/** Stored canonical neighbours that do not link: `[x, x+1]` pairs. */
function brokenLinks(stored: readonly CanonicalBlockRef[]): boolean {
  for (let i = 1; i < stored.length; i++) {
    const prev = stored[i - 1] as CanonicalBlockRef
    const block = stored[i] as CanonicalBlockRef
    if (block.number === prev.number + 1n && block.parentHash !== prev.hash) return true
  }
  return false
}

/**
 * Writes a linked run of verified blocks as canonical, with its indexed-range marker, in one
 * transaction under the network's shared write lock, if it links to the stored canonical
 * blocks on both sides. If it does not (a reorg, or a stale fetch), the node is asked again
 * and the difference resolved by {@link reconcileRange}.
 */
export async function writeLinkedBlocks(
  deps: ChainWriterDeps,
  target: ChainTarget,
  blocks: readonly VerifiedBlock[],
): Promise<WriteLinkedBlocksReturnType> {
  const first = blocks[0]
  const last = blocks.at(-1)
  if (!first || !last) return { written: 0 }
  checkLinkage(target.network, blocks)
  const { network } = target
  const from = first.header.number
  const to = last.header.number
  let reason: string | undefined
  let written = 0
  try {
    written = await deps.db.transaction(async (tx) => {
      await lockNetworkWrites(tx, { network, mode: 'shared' })
      const stored = await canonicalBlocks(tx, { network, from: from - 1n, to: to + 1n })
      reason = mismatch(stored, blocks)
      if (reason) return 0
      const result = await insertBlocksWithUncles(tx, { network, blocks })
      const alreadyCanonical = stored.filter((s) => s.number >= from && s.number <= to).length
      // Note: blocks stored earlier as replaced (a reorg back to a branch seen before) come back.
      if (result.blocks + alreadyCanonical < blocks.length)
        await setBlocksCanonical(tx, { network, hashes: blocks.map((b) => b.header.hash), canonical: true })
      await markRangeIndexed(tx, { network, from, to })
      return result.blocks
    })
  } catch (error) {
    if (!(error instanceof CanonicalBlockConflictError)) throw error
    reason = 'another block was written at the same height meanwhile'
  }
  if (!reason) {
    // Note: two writers of adjacent runs (shared lock) cannot see each other's rows before
    // commit; the later one sees both now, so a seam between branches is always caught.
    const edges = [
      ...(await canonicalBlocks(deps.db, { network, from: from - 1n, to: from })),
      ...(await canonicalBlocks(deps.db, { network, from: to, to: to + 1n })),
    ]
    if (!brokenLinks(edges)) return { written }
    reason = 'a neighbouring run written at the same time is on another branch'
  }
  deps.logger.debug({ msg: 'blocks do not fit the stored chain; asking the node again', from: from.toString(), to: to.toString(), reason })
  const reconciled = await reconcileRange(deps, target, { from, to })
  return { written: written + reconciled.written, reconciled }
}
