// The one module of block-range arithmetic: the database's findGaps, the indexer's planner,
// `uncle-rpc status` and the indexed-height metric all compute with these.

/** A closed interval of block numbers, `from <= to`. */
export type BlockRange = { from: bigint; to: bigint }

/** Sorts and merges overlapping or touching ranges (`[0, 4]` and `[5, 9]` become `[0, 9]`). */
export function mergeRanges(ranges: readonly BlockRange[]): BlockRange[] {
  const sorted = [...ranges].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0))
  const merged: BlockRange[] = []
  for (const r of sorted) {
    const last = merged.at(-1)
    if (last && r.from <= last.to + 1n) {
      if (r.to > last.to) last.to = r.to
    } else merged.push({ ...r })
  }
  return merged
}

/** The parts of `[from, to]` that `indexed` (merged: sorted by `from`, non-overlapping) does not cover. */
export function gapsOf({ from, to, indexed }: BlockRange & { indexed: readonly BlockRange[] }): BlockRange[] {
  const gaps: BlockRange[] = []
  let cursor = from
  for (const r of indexed) {
    if (r.to < cursor) continue
    if (r.from > to) break
    if (r.from > cursor) gaps.push({ from: cursor, to: r.from - 1n })
    cursor = r.to + 1n
  }
  if (cursor <= to) gaps.push({ from: cursor, to })
  return gaps
}

/** Whether `indexed` (merged) holds every block of `range`. */
export function coversRange(indexed: readonly BlockRange[], range: BlockRange): boolean {
  return gapsOf({ ...range, indexed }).length === 0
}

/**
 * The indexed height: the highest block below which every block from `from` is in `indexed`
 * (merged); `from − 1` when `from` itself is not.
 */
export function indexedHeight(from: bigint, indexed: readonly BlockRange[]): bigint {
  let height = from - 1n
  for (const r of indexed) {
    if (r.to <= height) continue
    if (r.from > height + 1n) break
    height = r.to
  }
  return height
}

/** The holes below the highest indexed block: blocks from `from` up to it that `indexed` (merged) lacks. */
export function holesBelowTop(from: bigint, indexed: readonly BlockRange[]): BlockRange[] {
  const top = indexed.at(-1)
  return top === undefined ? [] : gapsOf({ from, to: top.to, indexed })
}
