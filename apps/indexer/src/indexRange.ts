import { BaseError } from '@uncle-rpc/chain'
import type { Logger } from '@uncle-rpc/config'
import { type Db, findGaps, insertBlocksWithUncles, markRangeIndexed } from '@uncle-rpc/db'
import { fetchRange, type RejectedBlock, type VerifiedBlock } from './fetchRange.js'
import type { RangeJob } from './jobs.js'
import { type Upstream, UpstreamError } from './upstream/createUpstream.js'

/** Some blocks of a range failed verification: the rest were written, these were not. */
export class BlocksRejectedError extends BaseError {
  readonly rejected: RejectedBlock[]
  constructor(network: string, rejected: RejectedBlock[]) {
    const first = rejected[0]
    super(
      `${network}: ${rejected.length} block(s) refused, not written: ${rejected.map((r) => r.number).join(', ')}` +
        (first ? ` — ${first.error.shortMessage}` : ''),
      { name: 'BlocksRejectedError' },
    )
    this.rejected = rejected
  }
}

export type IndexRangeDeps = { db: Db; upstream: Upstream; logger: Logger }
export type IndexRangeResult = { blocks: number; uncles: number }

/** Splits sorted numbers into runs of consecutive numbers. */
function consecutiveRuns(numbers: readonly bigint[]): { from: bigint; to: bigint }[] {
  const runs: { from: bigint; to: bigint }[] = []
  for (const n of numbers) {
    const last = runs.at(-1)
    if (last && last.to + 1n === n) last.to = n
    else runs.push({ from: n, to: n })
  }
  return runs
}

/** Consecutive verified blocks must link by parentHash; if not, the node changed chains mid-fetch. */
function checkLinkage(network: string, blocks: readonly VerifiedBlock[]): void {
  for (let i = 1; i < blocks.length; i++) {
    const prev = blocks[i - 1] as VerifiedBlock
    const block = blocks[i] as VerifiedBlock
    if (block.header.number === prev.header.number + 1n && block.header.parentHash !== prev.header.hash)
      throw new UpstreamError(
        `${network}: block ${block.header.number} does not link to block ${prev.header.number} (the node's chain changed while fetching)`,
        { retryable: true },
      )
  }
}

/**
 * Indexes the blocks of `[from, to]` not yet in the database: fetch, verify, then write them and
 * mark them indexed in one transaction, so a crash at any instant leaves no gap and no duplicate.
 * Verified blocks are written even when others in the range are refused; the refused ones are
 * reported by throwing {@link BlocksRejectedError} after the write.
 */
export async function indexRange(deps: IndexRangeDeps, job: RangeJob): Promise<IndexRangeResult> {
  const gaps = await findGaps(deps.db, { network: job.network, from: job.from, to: job.to })
  const numbers: bigint[] = []
  for (const gap of gaps) for (let n = gap.from; n <= gap.to; n++) numbers.push(n)
  if (numbers.length === 0) return { blocks: 0, uncles: 0 }

  const { blocks, rejected } = await fetchRange(deps.upstream, numbers)
  blocks.sort((a, b) => (a.header.number < b.header.number ? -1 : 1))
  checkLinkage(job.network, blocks)

  if (blocks.length > 0) {
    await deps.db.transaction(async (tx) => {
      await insertBlocksWithUncles(tx, { network: job.network, blocks })
      for (const run of consecutiveRuns(blocks.map((b) => b.header.number)))
        await markRangeIndexed(tx, { network: job.network, from: run.from, to: run.to })
    })
  }
  if (rejected.length > 0) throw new BlocksRejectedError(job.network, rejected)
  return { blocks: blocks.length, uncles: blocks.reduce((sum, b) => sum + b.uncles.length, 0) }
}
