import { type EpochRoots, Era1FileRefusedError } from '@uncle-rpc/chain'
import { clearEra1Refusal, findGaps, recordEra1Refusal } from '@uncle-rpc/db/chain'
import type { Era1FileRef, Era1Store } from './store.js'
import { epochBlocks } from './verifyEpoch.js'
import type { VerifyPool } from './verifyPool.js'
import { Era1ConflictError } from '../errors.js'
import type { IndexRangeResult } from '../nodeSource/indexRange.js'
import type { EpochJob } from '../jobs/jobs.js'
import { type ChainWriterDeps, consecutiveRuns } from '../writing/linkage.js'
import { applyWritePlan } from '../writing/writer.js'

export type IndexEpochDeps = Pick<ChainWriterDeps, 'db' | 'logger'> & {
  store: Era1Store
  verifier: VerifyPool
  /** Published roots of the chain, when known. */
  roots: EpochRoots | undefined
}

/**
 * The era1 path of the pipeline for one epoch job: read the file, verify it whole (refused: the
 * refusal is recorded for `uncle-rpc status` and nothing is written), then write the blocks of
 * `[from, to]` not indexed yet with their range markers, in one transaction.
 */
export async function indexEpoch(deps: IndexEpochDeps, job: EpochJob): Promise<IndexRangeResult> {
  const { network } = job
  const gaps = await findGaps(deps.db, { network, from: job.from, to: job.to })
  if (gaps.length === 0) return { blocks: 0, uncles: 0, written: 0, unclesWritten: 0, reorgs: 0 }
  const ref: Era1FileRef = { epoch: job.epoch, name: job.file, startNumber: job.from, count: Number(job.to - job.from + 1n) }
  const t0 = performance.now()
  const bytes = await deps.store.read(ref)
  const t1 = performance.now()
  let verified: Awaited<ReturnType<VerifyPool['verify']>>
  try {
    verified = await deps.verifier.verify({ bytes, name: job.file, roots: deps.roots, want: gaps })
  } catch (error) {
    if (error instanceof Era1FileRefusedError) {
      await recordEra1Refusal(deps.db, { network, epoch: job.epoch, file: job.file, reason: error.reason })
      await deps.store.release(ref, 'refused')
    }
    throw error
  }
  const t2 = performance.now()
  const blocks = epochBlocks(verified.blocks)
  const outcome = await applyWritePlan(deps.db, { kind: 'append', network, runs: consecutiveRuns(blocks) })
  const t3 = performance.now()
  deps.logger.debug({ msg: 'epoch indexed', epoch: job.epoch, read_ms: Math.round(t1 - t0), verify_ms: Math.round(t2 - t1), write_ms: Math.round(t3 - t2) })
  if (outcome.kind === 'conflict') {
    // Note: recorded like a refused file, so `uncle-rpc status` shows it and planning counts the epoch as settled.
    const conflict = new Era1ConflictError(network, job.file, outcome.reason)
    await recordEra1Refusal(deps.db, { network, epoch: job.epoch, file: job.file, reason: conflict.reason })
    await deps.store.release(ref, 'refused')
    throw conflict
  }
  await clearEra1Refusal(deps.db, { network, epoch: job.epoch })
  await deps.store.release(ref, 'indexed')
  return {
    blocks: blocks.length,
    uncles: blocks.reduce((n, b) => n + b.uncles.length, 0),
    written: outcome.written,
    unclesWritten: outcome.unclesWritten,
    reorgs: 0,
  }
}
