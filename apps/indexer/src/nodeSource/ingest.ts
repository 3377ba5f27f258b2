import type { Hex } from '@uncle-rpc/chain'
import type { VerifiedBlock } from './fetchRange.js'
import { type ChainTarget, type ChainWriterDeps, runBreak } from '../writing/linkage.js'
import { planReorg } from './reorgPlan.js'
import { UpstreamError } from '../upstream/errors.js'
import { applyWritePlan, type BlockToWrite, type WriteOutcome } from '../writing/writer.js'

// The node path's pipeline for one run of verified blocks: check it is one chain, write it; if
// the stored chain disagrees, get a reorg plan from the node and write that. One attempt each:
// a chain that changes again meanwhile is the job's retry (BullMQ), not a loop here.

export type ReorgSummary = { replaced: number; from: bigint; to: bigint }
/** Blocks and uncles this call inserted (not those another writer stored first). */
export type IngestResult = { written: number; unclesWritten: number; reorg?: ReorgSummary }

const short = (hashes: readonly Hex[]) => (hashes.length > 32 ? [...hashes.slice(0, 32), `… ${hashes.length - 32} more`] : hashes)

/** Writes a run of consecutive verified blocks (sorted by number) as canonical, resolving a reorg if the stored chain differs. */
export async function ingestBlocks(deps: ChainWriterDeps, target: ChainTarget, run: readonly VerifiedBlock[]): Promise<IngestResult> {
  if (run.length === 0) return { written: 0, unclesWritten: 0 }
  const { network } = target
  const broken = runBreak(run.map((b) => b.header))
  if (broken) throw new UpstreamError(`${network}: ${broken} (the node's chain changed while fetching)`)
  const appended = await applyWritePlan(deps.db, { kind: 'append', network, runs: [run] })
  if (appended.kind === 'written') return { written: appended.written, unclesWritten: appended.unclesWritten }

  deps.logger.debug({ msg: 'blocks do not fit the stored chain; asking the node', from: appended.from.toString(), to: appended.to.toString(), reason: appended.reason })
  const plan = await planReorg(deps, target, { from: appended.from, to: appended.to })
  const applied = await applyWritePlan(deps.db, plan)
  if (applied.kind === 'conflict')
    throw new UpstreamError(`${network}: the chain changed again while resolving a reorg (${applied.reason})`)
  logReorg(deps, target, plan, applied)
  const first = plan.chain[0] as BlockToWrite
  const last = plan.chain.at(-1) as BlockToWrite
  return {
    written: applied.written,
    unclesWritten: applied.unclesWritten,
    reorg: { replaced: applied.replaced.length, from: first.header.number, to: last.header.number },
  }
}

function logReorg(
  deps: ChainWriterDeps,
  target: ChainTarget,
  plan: { head: bigint; chain: readonly BlockToWrite[] },
  applied: WriteOutcome & { kind: 'written' },
): void {
  if (applied.replaced.length === 0) return
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
