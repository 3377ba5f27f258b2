import { formatEta, progressBar } from '@uncle-rpc/indexer'
import { type Sample, sumSamples } from '@uncle-rpc/metrics'

/** One scrape of the indexer's and the rpc's /metrics, and when it was taken (ms). */
export type LiveSample = { at: number; indexer: readonly Sample[]; rpc: readonly Sample[] }

/** What the live line of one network shows. */
export type NetworkStatus = {
  network: string
  indexed: bigint | null
  target: bigint | null
  blocksPerSecond: number
  requestsPerSecond: number
}

const gauge = (samples: readonly Sample[], name: string, network: string): bigint | null => {
  const values = samples.filter((s) => s.name === name && s.labels.network === network).map((s) => s.value)
  return values.length === 0 || values.some((v) => !Number.isFinite(v)) ? null : BigInt(Math.max(...values))
}

/**
 * Per network: indexed height and target from the indexer's gauges, blocks/s and requests/s as
 * the counters' change between the oldest and the newest of `window` (a few seconds of scrapes).
 */
export function networkStatuses(networks: readonly string[], window: readonly LiveSample[]): NetworkStatus[] {
  const first = window[0]
  const last = window[window.length - 1]
  return networks.map((network) => {
    if (first === undefined || last === undefined) return { network, indexed: null, target: null, blocksPerSecond: 0, requestsPerSecond: 0 }
    const seconds = (last.at - first.at) / 1000
    const rate = (pick: (s: LiveSample) => readonly Sample[], name: string) =>
      seconds <= 0 ? 0 : Math.max(0, (sumSamples(pick(last), name, { network }) - sumSamples(pick(first), name, { network })) / seconds)
    return {
      network,
      indexed: gauge(last.indexer, 'uncle_rpc_indexer_indexed_height', network),
      target: gauge(last.indexer, 'uncle_rpc_indexer_target_height', network),
      blocksPerSecond: rate((s) => s.indexer, 'uncle_rpc_indexer_blocks_written_total'),
      requestsPerSecond: rate((s) => s.rpc, 'uncle_rpc_requests_total'),
    }
  })
}

const number = (n: bigint | number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 })

/** One network's live line: `mainnet  [████░░] 61%  6,100 / 10,000  1,234 blocks/s  ETA 3s  12 req/s`. */
export function renderNetworkLine(s: NetworkStatus, nameWidth = s.network.length): string {
  const name = s.network.padEnd(nameWidth)
  if (s.indexed === null || s.target === null) return `${name}  ${progressBar(0)}  waiting for the indexer…  ${number(s.requestsPerSecond)} req/s`
  // Note: nothing indexed yet is height fromBlock − 1 (−1 from genesis); shown as 0.
  const indexed = s.indexed < 0n ? 0n : s.indexed
  const fraction = s.target <= 0n ? 1 : Number(indexed) / Number(s.target)
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4)
  const eta = formatEta(s.target - s.indexed, s.blocksPerSecond)
  return `${name}  ${progressBar(fraction)} ${percent}  ${number(indexed)} / ${number(s.target)}  ${number(s.blocksPerSecond)} blocks/s  ETA ${eta}  ${number(s.requestsPerSecond)} req/s`
}
