import { type BlockRange, gapsOf, mergeRanges } from '@uncle-rpc/chain'
import type { EpochCoverage } from '../era1/era1Files.js'

// How the planner cuts what is left into jobs (the range arithmetic is chain's blockRanges.ts).

/**
 * Splits the gaps (not yet indexed parts of `[from, to]`) into jobs aligned to multiples of
 * `rangeSize`, so every planner cuts the same boundaries and job ids coincide.
 * `indexed` must be sorted by `from` and non-overlapping.
 */
export function planRanges({
  from,
  to,
  indexed,
  rangeSize,
}: BlockRange & { indexed: readonly BlockRange[]; rangeSize: bigint }): BlockRange[] {
  const jobs: BlockRange[] = []
  for (const gap of gapsOf({ from, to, indexed })) {
    let start = gap.from
    while (start <= gap.to) {
      const alignedEnd = (start / rangeSize + 1n) * rangeSize - 1n
      const end = alignedEnd < gap.to ? alignedEnd : gap.to
      jobs.push({ from: start, to: end })
      start = end + 1n
    }
  }
  return jobs
}


export type PlannedJobs = {
  /** One job per era1 file that still has blocks to index in `[from, to]`. */
  epochs: (EpochCoverage & BlockRange)[]
  /** Node range jobs for the rest (heights no era1 file holds). */
  ranges: BlockRange[]
}

/**
 * Splits what is left of `[from, to]` between era1 files and the node: each epoch with a gap
 * becomes one job (clipped to `[from, to]`), the heights no file covers become range jobs as
 * {@link planRanges} cuts them. `epochs` must be sorted and must not overlap.
 */
export function planJobs({
  from,
  to,
  indexed,
  rangeSize,
  epochs,
}: BlockRange & { indexed: readonly BlockRange[]; rangeSize: bigint; epochs: readonly EpochCoverage[] }): PlannedJobs {
  const gaps = gapsOf({ from, to, indexed })
  const covered: (EpochCoverage & BlockRange)[] = []
  for (const e of epochs) {
    const lo = e.from > from ? e.from : from
    const hi = e.to < to ? e.to : to
    if (lo > hi) continue
    if (gaps.some((g) => g.from <= hi && g.to >= lo)) covered.push({ ...e, from: lo, to: hi })
  }
  // The node's share: the gaps minus every epoch's span (indexed or not).
  const spans = epochs.map((e) => ({ from: e.from, to: e.to }))
  const ranges = planRanges({ from, to, indexed: mergeRanges([...indexed, ...spans]), rangeSize })
  return { epochs: covered, ranges }
}
