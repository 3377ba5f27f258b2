import { quantile } from '../openLoop.js'
import { unavailablePrefix } from './calls.js'

// The soak's figures, apart from its processes: what one minute's line says, the final summary,
// and which acceptance thresholds the summary misses.

/** Requests sent in one minute over one transport, and how they ended. */
export type Window = {
  requests: number
  /** Requests not answered right, the documented "index cannot answer" answers during a Postgres outage included. */
  failed: number
  /** Those requests by `<kind>/<transport> <reason>`. */
  reasons: Map<string, number>
  /** Latency of every request (ms), from the moment it was due. */
  latencies: number[]
}

/** Windows merged, with the documented "index cannot answer" answers given during a Postgres outage (`unavailable: …` reasons) apart from the failures. */
export type Tally = {
  requests: number
  failed: number
  failedBy: Map<string, number>
  unavailable: number
  unavailableBy: Map<string, number>
  latencies: number[]
}

/** RSS (MB) of each process of the fleet at one moment, with the pid that had it. */
export type RssSample = Record<string, { pid: number; mb: number }>

export type FaultRecord = { minute: number; fault: string; ok: boolean; recoveredMs: number; detail?: string }

export type MinuteLine = {
  minute: number
  requests: number
  failed: number
  failedBy: Record<string, number>
  unavailable: number
  unavailableBy: Record<string, number>
  p99Ms: number
  rssMb: Record<string, number>
  fault?: FaultRecord
}

export type Summary = {
  minutes: number
  requests: number
  failed: number
  failedShare: number
  failedBy: Record<string, number>
  unavailable: number
  unavailableShare: number
  unavailableBy: Record<string, number>
  faults: number
  faultsFailed: string[]
  p99Ms: number
  maxMs: number
  rssGrowthMb: number
  rssGrowthOf: string
  chainEqualsNode: boolean
  duplicates: number
  blocks: number
  replacedBlocks: number
  chainDetail: string
}

export type Thresholds = { maxFailedShare: number; maxRssGrowthMb: number; minFaults: number }
const acceptance: Thresholds = { maxFailedShare: 0.001, maxRssGrowthMb: 100, minFaults: 3 }

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits

/** Windows (of one minute, or of the whole run) as one tally. */
export function mergeWindows(windows: readonly Window[]): Tally {
  const tally: Tally = { requests: 0, failed: 0, failedBy: new Map(), unavailable: 0, unavailableBy: new Map(), latencies: [] }
  for (const w of windows) {
    tally.requests += w.requests
    tally.failed += w.failed
    for (const [reason, n] of w.reasons) {
      const unavailable = reason.includes(` ${unavailablePrefix}`)
      const by = unavailable ? tally.unavailableBy : tally.failedBy
      by.set(reason, (by.get(reason) ?? 0) + n)
      if (unavailable) {
        tally.unavailable += n
        tally.failed -= n
      }
    }
  }
  tally.latencies = windows.flatMap((w) => w.latencies).sort((a, b) => a - b)
  return tally
}

const counts = (by: Map<string, number>) => Object.fromEntries([...by].sort((a, b) => b[1] - a[1]))

export function minuteLine(minute: number, tally: Tally, rss: RssSample, fault?: FaultRecord): MinuteLine {
  return {
    minute,
    requests: tally.requests,
    failed: tally.failed,
    failedBy: counts(tally.failedBy),
    unavailable: tally.unavailable,
    unavailableBy: counts(tally.unavailableBy),
    p99Ms: round(quantile(tally.latencies, 0.99)),
    rssMb: Object.fromEntries(Object.entries(rss).map(([name, s]) => [name, round(s.mb)])),
    ...(fault === undefined ? {} : { fault }),
  }
}

/**
 * The largest RSS growth of any of `names` from its first sample to its last. A process that was
 * restarted is measured from the first sample of the process alive at the end (its pid), so a
 * restart neither hides nor fakes growth.
 */
export function rssGrowth(samples: readonly RssSample[], names: readonly string[]): { mb: number; of: string } {
  let worst = { mb: 0, of: 'none' }
  for (const name of names) {
    const last = samples.at(-1)?.[name]
    if (last === undefined) continue
    const first = samples.find((s) => s[name]?.pid === last.pid)![name]!
    if (worst.of === 'none' || last.mb - first.mb > worst.mb) worst = { mb: round(last.mb - first.mb), of: name }
  }
  return worst
}

export type ChainCheck = { equal: boolean; duplicates: number; blocks: number; replacedBlocks: number; detail: string }

export function summarize(
  minutes: number,
  all: Tally,
  faults: readonly FaultRecord[],
  growth: { mb: number; of: string },
  chain: ChainCheck,
): Summary {
  return {
    minutes,
    requests: all.requests,
    failed: all.failed,
    failedShare: all.requests === 0 ? 1 : round(all.failed / all.requests, 6),
    failedBy: counts(all.failedBy),
    unavailable: all.unavailable,
    unavailableShare: all.requests === 0 ? 0 : round(all.unavailable / all.requests, 6),
    unavailableBy: counts(all.unavailableBy),
    faults: faults.filter((f) => f.ok).length,
    faultsFailed: faults.filter((f) => !f.ok).map((f) => `minute ${f.minute} ${f.fault}: ${f.detail ?? 'failed'}`),
    p99Ms: round(quantile(all.latencies, 0.99)),
    maxMs: round(quantile(all.latencies, 1)),
    rssGrowthMb: growth.mb,
    rssGrowthOf: growth.of,
    chainEqualsNode: chain.equal,
    duplicates: chain.duplicates,
    blocks: chain.blocks,
    replacedBlocks: chain.replacedBlocks,
    chainDetail: chain.detail,
  }
}

/** The thresholds `summary` misses, as sentences; empty when it passes. */
export function missedThresholds(summary: Summary, thresholds: Thresholds = acceptance): string[] {
  const missed: string[] = []
  if (summary.requests === 0) missed.push('no request was sent')
  if (summary.failedShare > thresholds.maxFailedShare) missed.push(`failed ${summary.failed} of ${summary.requests} (> ${thresholds.maxFailedShare * 100}%)`)
  if (!summary.chainEqualsNode) missed.push(`the index differs from the node's chain: ${summary.chainDetail}`)
  if (summary.duplicates > 0) missed.push(`${summary.duplicates} rows indexed twice`)
  const wanted = Math.min(thresholds.minFaults, summary.minutes)
  if (summary.faults < wanted) missed.push(`${summary.faults} faults carried out and recovered (< ${wanted})`)
  if (summary.faultsFailed.length > 0) missed.push(`faults not recovered: ${summary.faultsFailed.join('; ')}`)
  if (summary.rssGrowthMb > thresholds.maxRssGrowthMb) missed.push(`RSS of ${summary.rssGrowthOf} grew ${summary.rssGrowthMb} MB (> ${thresholds.maxRssGrowthMb})`)
  return missed
}
