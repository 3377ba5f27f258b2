import { parseMetrics } from '@uncle-rpc/metrics'
import { describe, expect, test } from 'vitest'
import { createLiveBlock } from './liveBlock.js'
import { networkStatuses, renderNetworkLine } from './liveStatus.js'

const indexer = (written: number, height: number) =>
  parseMetrics(`uncle_rpc_indexer_blocks_written_total{network="mainnet",source="rpc"} ${written}
uncle_rpc_indexer_indexed_height{network="mainnet"} ${height}
uncle_rpc_indexer_target_height{network="mainnet"} 10000
`)
const rpc = (n: number) => parseMetrics(`uncle_rpc_requests_total{network="mainnet",transport="http",outcome="found"} ${n}\n`)

describe('live status', () => {
  test('default: rates over the window, indexed / target, ETA', () => {
    const [status] = networkStatuses(['mainnet'], [
      { at: 0, indexer: indexer(1000, 1000), rpc: rpc(10) },
      { at: 2000, indexer: indexer(5000, 5000), rpc: rpc(30) },
    ])
    expect(status).toEqual({ network: 'mainnet', indexed: 5000n, target: 10000n, blocksPerSecond: 2000, requestsPerSecond: 10 })
    expect(renderNetworkLine(status!)).toBe('mainnet  [██████████░░░░░░░░░░]  50%  5,000 / 10,000  2,000 blocks/s  ETA 3s  10 req/s')
  })

  test('behavior: before the first scrape of the indexer', () => {
    const [status] = networkStatuses(['mainnet'], [{ at: 0, indexer: [], rpc: [] }])
    expect(renderNetworkLine(status!)).toMatch(/^mainnet {2}\[░+\] {2}waiting for the indexer…/)
  })

  test('behavior: the block is redrawn in place below the log lines', () => {
    let screen = ''
    const block = createLiveBlock((text) => {
      screen += text
    })
    block.update(['a', 'b'])
    block.log('log line')
    expect(screen).toBe('a\nb\n\x1b[2F\x1b[0Jlog line\na\nb\n')
  })
})
