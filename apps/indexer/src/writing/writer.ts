import { BaseError } from '@uncle-rpc/errors'
import { boundedTransaction, type Db } from '@uncle-rpc/db'
import {
  CanonicalBlockConflictError,
  type CanonicalBlockRef,
  canonicalBlocks,
  copyBlocksWithUncles,
  lockNetworkWrites,
  markRangeIndexed,
  recordReorg,
  setBlocksCanonical,
  unmarkRangeIndexed,
} from '@uncle-rpc/db/chain'
import type { BlockWithUncles } from '@uncle-rpc/db/chain'
import { links, runBreak, storedBreak } from './linkage.js'

// The last stage of the pipeline (source → verify → write): applies a plan in one transaction
// under the network's write lock, or says why it does not fit the stored chain. It never fetches:
// resolving a conflict is the caller's job (ingest.ts asks the source for a reorg plan).

/** A verified block as the writer needs it (a node-path BlockToWrite or an era1 EpochBlock). */
export type BlockToWrite = BlockWithUncles

/** Verified, linked runs (each sorted by number) to write as canonical and mark indexed. */
export type AppendPlan = { kind: 'append'; network: string; runs: readonly (readonly BlockToWrite[])[] }

/** The source's chain over the heights that change, linked, lowest first; stored blocks it replaces stay, not canonical. */
export type ReorgPlan = { kind: 'reorg'; network: string; head: bigint; chain: readonly BlockToWrite[] }

export type WritePlan = AppendPlan | ReorgPlan

export type WriteOutcome =
  | { kind: 'written'; written: number; unclesWritten: number; replaced: CanonicalBlockRef[]; orphans: number }
  /** Nothing (or, for a seam found after commit, only this run) was written: the stored chain disagrees over [from, to]. */
  | { kind: 'conflict'; reason: string; from: bigint; to: bigint }

const maxBigint = 2n ** 63n - 1n

/** Carries a conflict out of the transaction, rolling it back. */
class RunConflict extends BaseError {
  readonly outcome: WriteOutcome
  constructor(outcome: WriteOutcome & { kind: 'conflict' }) {
    super(outcome.reason, { name: 'RunConflict' })
    this.outcome = outcome
  }
}

const edges = (run: readonly BlockToWrite[]) => ({
  from: (run[0] as BlockToWrite).header.number,
  to: (run.at(-1) as BlockToWrite).header.number,
})
const refs = (run: readonly BlockToWrite[]) => run.map((b) => b.header)

async function applyAppend(db: Db, plan: AppendPlan): Promise<WriteOutcome> {
  const { network } = plan
  const runs = plan.runs.filter((r) => r.length > 0)
  let outcome: WriteOutcome
  try {
    outcome = await boundedTransaction(db, async (tx) => {
      await lockNetworkWrites(tx, { network, mode: 'shared' })
      let written = 0
      let unclesWritten = 0
      for (const run of runs) {
        const { from, to } = edges(run)
        const stored = await canonicalBlocks(tx, { network, from: from - 1n, to: to + 1n })
        const reason = storedBreak(stored, refs(run))
        // Note: thrown, so runs written before this one in the transaction are rolled back too.
        if (reason) throw new RunConflict({ kind: 'conflict', reason, from, to })
        const result = await copyBlocksWithUncles(tx, { network, blocks: run })
        const alreadyCanonical = stored.filter((s) => s.number >= from && s.number <= to).length
        // Note: blocks stored earlier as replaced (a reorg back to a branch seen before) come back.
        if (result.blocks + alreadyCanonical < run.length)
          await setBlocksCanonical(tx, { network, hashes: run.map((b) => b.header.hash), canonical: true })
        await markRangeIndexed(tx, { network, from, to })
        written += result.blocks
        unclesWritten += result.uncles
      }
      return { kind: 'written', written, unclesWritten, replaced: [], orphans: 0 } as const
    })
  } catch (error) {
    if (error instanceof CanonicalBlockConflictError) {
      const { from, to } = edges(runs[0] ?? [])
      return { kind: 'conflict', reason: 'another block was written at the same height meanwhile', from, to }
    }
    if (error instanceof RunConflict) return error.outcome
    throw error
  }
  // Note: two writers of adjacent runs (shared lock) cannot see each other's rows before commit;
  // the later one sees both now, so a seam between branches is always caught.
  for (const run of runs) {
    const { from, to } = edges(run)
    for (const [low, high] of [
      [from - 1n, from],
      [to, to + 1n],
    ] as const) {
      const pair = await canonicalBlocks(db, { network, from: low, to: high })
      if (pair.length === 2 && runBreak(pair))
        return { kind: 'conflict', reason: 'a neighbouring run written at the same time is on another branch', from, to }
    }
  }
  return outcome
}

async function applyReorg(db: Db, plan: ReorgPlan): Promise<WriteOutcome> {
  const { network, chain } = plan
  const { from: low, to: high } = edges(chain)
  return boundedTransaction(db, async (tx) => {
    await lockNetworkWrites(tx, { network, mode: 'exclusive' })
    const stored = await canonicalBlocks(tx, { network, from: low - 1n, to: high + 1n })
    // The walk stopped where the stored chain agreed (or had nothing): still so?
    const reason = storedBreak(stored, refs(chain), { head: plan.head })
    if (reason) return { kind: 'conflict', reason, from: low, to: high } as const
    const byNumber = new Map(stored.map((s) => [s.number, s]))
    const replaced: CanonicalBlockRef[] = []
    for (const block of chain) {
      const s = byNumber.get(block.header.number)
      if (s && s.hash !== block.header.hash) replaced.push(s)
    }
    // Stored blocks above the node's head that do not descend from it are on a dead branch.
    const over = byNumber.get(high + 1n)
    const orphans = over && !links((chain.at(-1) as BlockToWrite).header, over)
      ? await canonicalBlocks(tx, { network, from: high + 1n, to: maxBigint })
      : []
    replaced.push(...orphans)

    await setBlocksCanonical(tx, { network, hashes: replaced.map((s) => s.hash), canonical: false })
    const result = await copyBlocksWithUncles(tx, { network, blocks: chain })
    if (result.blocks < chain.length)
      await setBlocksCanonical(tx, { network, hashes: chain.map((b) => b.header.hash), canonical: true })
    await markRangeIndexed(tx, { network, from: low, to: high })
    const lastOrphan = orphans.at(-1)
    if (lastOrphan) await unmarkRangeIndexed(tx, { network, from: high + 1n, to: lastOrphan.number })

    const top = replaced.reduce<CanonicalBlockRef | undefined>((a, s) => (a && a.number > s.number ? a : s), undefined)
    if (top) {
      const bottom = replaced.reduce((a, s) => (a.number < s.number ? a : s), top)
      const newHash = chain.find((b) => b.header.number === top.number)?.header.hash ?? null
      await recordReorg(tx, { network, fromBlock: bottom.number, toBlock: top.number, depth: replaced.length, oldHash: top.hash, newHash })
    }
    return { kind: 'written', written: result.blocks, unclesWritten: result.uncles, replaced, orphans: orphans.length } as const
  })
}

/** Applies `plan` in one transaction; a conflict writes nothing (see {@link WriteOutcome}). */
export async function applyWritePlan(db: Db, plan: WritePlan): Promise<WriteOutcome> {
  return plan.kind === 'append' ? applyAppend(db, plan) : applyReorg(db, plan)
}
