import { findGaps } from '@uncle-rpc/db/chain'
import { BlocksRejectedError } from '../errors.js'
import { fetchRange, unfetchedError } from './fetchRange.js'
import type { RangeJob } from '../jobs/jobs.js'
import { type ChainTarget, type ChainWriterDeps, consecutiveRuns } from '../writing/linkage.js'
import { ingestBlocks } from './ingest.js'

export type IndexRangeDeps = ChainWriterDeps & { target: ChainTarget }
/** Blocks and uncles fetched and verified; `written` and `unclesWritten`: those this job inserted. */
export type IndexRangeResult = { blocks: number; uncles: number; written: number; unclesWritten: number; reorgs: number }

/**
 * Indexes the blocks of `[from, to]` not yet in the database: fetch, verify, then write each run
 * of consecutive blocks and mark it indexed in one transaction, so a crash at any instant leaves
 * no gap and no duplicate. A run that does not link to the stored chain resolves the reorg
 * ({@link ingestBlocks}). Verified blocks are written even when others in the range were not
 * fetched or are refused; after the write, blocks the node did not answer for fail the attempt
 * (UpstreamError: the job's next attempt fetches only what is still missing), then refused ones
 * are reported by throwing {@link BlocksRejectedError}.
 */
export async function indexRange(deps: IndexRangeDeps, job: RangeJob): Promise<IndexRangeResult> {
  const gaps = await findGaps(deps.db, { network: job.network, from: job.from, to: job.to })
  const numbers: bigint[] = []
  for (const gap of gaps) for (let n = gap.from; n <= gap.to; n++) numbers.push(n)
  if (numbers.length === 0) return { blocks: 0, uncles: 0, written: 0, unclesWritten: 0, reorgs: 0 }

  const { blocks, rejected, unfetched } = await fetchRange(deps.upstream, numbers)
  blocks.sort((a, b) => (a.header.number < b.header.number ? -1 : 1))
  let written = 0
  let unclesWritten = 0
  let reorgs = 0
  for (const run of consecutiveRuns(blocks)) {
    const result = await ingestBlocks(deps, deps.target, run)
    written += result.written
    unclesWritten += result.unclesWritten
    if (result.reorg && result.reorg.replaced > 0) reorgs++
  }
  if (unfetched !== undefined) throw unfetchedError(job.network, unfetched)
  if (rejected.length > 0) throw new BlocksRejectedError(job.network, rejected)
  return { blocks: blocks.length, uncles: blocks.reduce((sum, b) => sum + b.uncles.length, 0), written, unclesWritten, reorgs }
}
