import type { Logger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import type { Hex } from '@uncle-rpc/chain'
import type { Upstream } from '../upstream/createUpstream.js'

// The one place that decides whether blocks link by parent hash: within a fetched run, against
// the stored canonical blocks around it (the writer), and while walking to a fork point (the
// reorg planner). Pure: callers bring the blocks, nothing here reads or fetches.

/** What fetching from the node and writing to the canonical chain need. */
export type ChainWriterDeps = { db: Db; upstream: Upstream; logger: Logger }

/** What reorg handling needs to know about a network. */
export type ChainTarget = { network: string; fromBlock: bigint; confirmations: bigint }

/** A block as far as linkage goes. */
export type LinkRef = { number: bigint; hash: Hex; parentHash: Hex }

/** Whether `child` sits directly on `parent`. */
export function links(parent: Pick<LinkRef, 'number' | 'hash'>, child: Pick<LinkRef, 'number' | 'parentHash'>): boolean {
  return child.number === parent.number + 1n && child.parentHash === parent.hash
}

/** Why consecutive blocks of `run` (sorted by number) do not form one chain, if they do not. */
export function runBreak(run: readonly LinkRef[]): string | undefined {
  for (let i = 1; i < run.length; i++) {
    const prev = run[i - 1] as LinkRef
    const block = run[i] as LinkRef
    if (!links(prev, block)) return `block ${block.number} does not link to block ${prev.number}`
  }
  return undefined
}

/**
 * Why `run` cannot be written among the stored canonical blocks `stored` (its neighbours at
 * run.from − 1 and run.to + 1, and what is stored inside it), if it cannot. With `replace`, stored
 * blocks inside the run may differ (a reorg plan replaces them) and a stored block above
 * `replace.head` that does not link is an orphan to drop, not a conflict.
 */
export function storedBreak(
  stored: readonly LinkRef[],
  run: readonly LinkRef[],
  replace?: { head: bigint },
): string | undefined {
  const first = run[0]
  const last = run.at(-1)
  if (!first || !last) return undefined
  const own = new Map(run.map((b) => [b.number, b.hash]))
  for (const s of stored) {
    if (s.number === first.number - 1n && !links(s, first)) return `stored block ${s.number} is not the parent of block ${first.number}`
    if (s.number === last.number + 1n && !links(last, s) && !(replace && s.number > replace.head))
      return `stored block ${s.number} is not a child of block ${last.number}`
    const hash = own.get(s.number)
    if (!replace && hash !== undefined && hash !== s.hash) return `another block is stored at ${s.number}`
  }
  return undefined
}

/** Splits blocks sorted by number into runs of consecutive numbers. */
export function consecutiveRuns<T extends { header: { number: bigint } }>(blocks: readonly T[]): T[][] {
  const runs: T[][] = []
  for (const block of blocks) {
    const run = runs.at(-1)
    const last = run?.at(-1)
    if (run && last && last.header.number + 1n === block.header.number) run.push(block)
    else runs.push([block])
  }
  return runs
}
