import { formatEta } from '../progress.js'

/** `[██████░░░░]` for a fraction in 0…1. */
export function progressBar(fraction: number, width = 20): string {
  const filled = Math.round(Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0)) * width)
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}]`
}

/** Where a network's indexing stands: the contiguous indexed height against its target, and how fast it moves. */
export type ProgressView = {
  /** Highest block below which everything from fromBlock is indexed (fromBlock − 1: nothing yet). */
  indexedHeight: bigint
  /** toBlock, else the node's head; null when neither is known (no config, node unreachable). */
  target: bigint | null
  nodeHead: bigint | null
  /** Blocks indexed per second between two looks; null after only one. */
  blocksPerSecond: number | null
}

const grouped = (n: bigint | number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 })

/** One line: bar, percent, height / target, blocks/s, ETA and head lag (node head − latest indexed). */
export function formatProgress(view: ProgressView, latest: bigint | null): string {
  const height = view.indexedHeight < 0n ? 0n : view.indexedHeight
  const rate = view.blocksPerSecond === null ? 'blocks/s: measuring' : `${grouped(view.blocksPerSecond)} blocks/s`
  const lag = view.nodeHead === null ? 'head lag: node not asked' : `head lag ${grouped(view.nodeHead - (latest ?? view.indexedHeight))}`
  if (view.target === null) return `  ${progressBar(0)}  indexed to ${grouped(height)}  ${rate}  ${lag}`
  const fraction = view.target <= 0n ? 1 : Number(height) / Number(view.target)
  const eta = formatEta(view.target - view.indexedHeight, view.blocksPerSecond ?? 0)
  return `  ${progressBar(fraction)} ${`${Math.floor(Math.min(1, fraction) * 100)}%`.padStart(4)}  ${grouped(height)} / ${grouped(view.target)}  ${rate}  ETA ${eta}  ${lag}`
}

