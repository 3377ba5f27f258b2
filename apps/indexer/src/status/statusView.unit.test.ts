import { describe, expect, test } from 'vitest'
import { formatEta } from '../progress.js'
import { formatProgress, progressBar } from './statusView.js'

describe('status view', () => {
  test('default: bar, percent, height / target, blocks/s, ETA, head lag', () => {
    expect(formatProgress({ indexedHeight: 4999n, target: 10_000n, nodeHead: 10_003n, blocksPerSecond: 1000 }, 10_000n)).toBe(
      '  [██████████░░░░░░░░░░]  49%  4,999 / 10,000  1,000 blocks/s  ETA 6s  head lag 3',
    )
  })

  test('behavior: one look (no rate yet), no node', () => {
    expect(formatProgress({ indexedHeight: -1n, target: null, nodeHead: null, blocksPerSecond: null }, null)).toBe(
      '  [░░░░░░░░░░░░░░░░░░░░]  indexed to 0  blocks/s: measuring  head lag: node not asked',
    )
  })

  test('args: bar bounds, ETA units', () => {
    expect([progressBar(1.5, 4), progressBar(-1, 4), progressBar(Number.NaN, 4)]).toEqual(['[████]', '[░░░░]', '[░░░░]'])
    expect([formatEta(0n, 1), formatEta(10n, 0), formatEta(100n, 1), formatEta(36_000n, 1)]).toEqual(['done', 'unknown', '2m', '10.0h'])
  })
})
