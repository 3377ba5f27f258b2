/** A closed interval of block numbers. */
export type BlockRange = { from: bigint; to: bigint }

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
  const gaps: BlockRange[] = []
  let cursor = from
  for (const r of indexed) {
    if (r.to < cursor) continue
    if (r.from > to) break
    if (r.from > cursor) gaps.push({ from: cursor, to: r.from - 1n })
    cursor = r.to + 1n
  }
  if (cursor <= to) gaps.push({ from: cursor, to })

  const jobs: BlockRange[] = []
  for (const gap of gaps) {
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
