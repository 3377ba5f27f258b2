/** Counters of one network's ingestion, for the periodic progress log. */
export type NetworkProgress = {
  /** Blocks fetched and verified (each range fetches only what is not indexed yet). */
  blocks: number
  uncles: number
  /** Rows this process wrote to `blocks` and to `uncles` (a block another writer stored first is not counted). */
  written: number
  unclesWritten: number
  /** Blocks in the recent window and when it started, for a current (not lifetime) rate. */
  windowBlocks: number
  windowStart: number
}

export type Progress = {
  /** `source` and `reorgs` are for the metrics (metrics.ts); the progress log counts blocks. */
  recordRange(
    network: string,
    result: { blocks: number; uncles: number; written?: number; unclesWritten?: number; ms: number; source?: 'era1' | 'rpc'; reorgs?: number },
  ): void
  /** Blocks per second over the window since the last call, then starts a new window. */
  takeRate(network: string, now?: number): number
  get(network: string): NetworkProgress
}

/** In-memory progress counters, one set per network. */
export function createProgress(): Progress {
  const byNetwork = new Map<string, NetworkProgress>()
  const get = (network: string) => {
    let p = byNetwork.get(network)
    if (!p) {
      p = { blocks: 0, uncles: 0, written: 0, unclesWritten: 0, windowBlocks: 0, windowStart: Date.now() }
      byNetwork.set(network, p)
    }
    return p
  }
  return {
    get,
    recordRange(network, result) {
      const p = get(network)
      p.blocks += result.blocks
      p.uncles += result.uncles
      p.written += result.written ?? result.blocks
      p.unclesWritten += result.unclesWritten ?? result.uncles
      p.windowBlocks += result.blocks
    },
    takeRate(network, now = Date.now()) {
      const p = get(network)
      const seconds = (now - p.windowStart) / 1000
      const rate = seconds > 0 ? p.windowBlocks / seconds : 0
      p.windowBlocks = 0
      p.windowStart = now
      return rate
    },
  }
}

/** Human ETA for `remaining` blocks at `rate` blocks/s. */
export function formatEta(remaining: bigint, rate: number): string {
  if (remaining <= 0n) return 'done'
  if (rate <= 0) return 'unknown'
  const seconds = Number(remaining) / rate
  if (seconds < 90) return `${Math.ceil(seconds)}s`
  if (seconds < 5400) return `${Math.round(seconds / 60)}m`
  return `${(seconds / 3600).toFixed(1)}h`
}
