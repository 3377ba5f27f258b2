import { describe, expect, test } from 'vitest'
import { parseSampleNodeArgs } from './args.js'

describe('parseSampleNodeArgs', () => {
  test('default: a synthetic chain of 10,000 blocks, seed 1, on 127.0.0.1:8546', () => {
    expect(parseSampleNodeArgs([])).toEqual({
      source: { kind: 'synthetic', blocks: 10_000, seed: 1, londonAt: 12_965_000, chainId: 1337n },
      live: undefined,
      faults: { errorRate: undefined, latencyMs: undefined, rateLimitRps: undefined, dropRate: undefined, seed: 1 },
      tamperBlock: undefined,
      maxBatchSize: 1000,
      port: 8546,
      host: '127.0.0.1',
    })
    expect(parseSampleNodeArgs(['--help'])).toBe('help')
  })

  test('args: era1 files, live chain, faults', () => {
    const config = parseSampleNodeArgs([
      '--chain',
      'a.era1',
      '--chain',
      'dir/',
      '--chain-id',
      '1',
      '--fault-latency-ms',
      '5-9',
      '--tamper-block',
      '7',
    ])
    expect(config).toMatchObject({ source: { kind: 'era1', paths: ['a.era1', 'dir/'], chainId: 1n }, tamperBlock: 7n })
    expect(config !== 'help' && config.faults.latencyMs).toEqual([5, 9])
    const live = parseSampleNodeArgs(['--synthetic', '500', '--block-time', '1000', '--reorg-rate', '0.1', '--port', '0'])
    expect(live).toMatchObject({ source: { blocks: 500 }, live: { blockTimeMs: 1000, reorgRate: 0.1, reorgDepth: 3 }, port: 0 })
    expect(parseSampleNodeArgs(['--block-time', '200', '--stop-after', '300'])).toMatchObject({
      live: { blockTimeMs: 200, stopAfter: 300 },
    })
  })

  test('error: contradictions and bad values', () => {
    expect(() => parseSampleNodeArgs(['--chain', 'x', '--synthetic', '5'])).toThrow('--chain and --synthetic cannot be combined')
    expect(() => parseSampleNodeArgs(['--reorg-rate', '0.1'])).toThrow('need --block-time')
    expect(() => parseSampleNodeArgs(['--stop-after', '10'])).toThrow('need --block-time')
    expect(() => parseSampleNodeArgs(['--block-time', '5', '--stop-after', '0'])).toThrow('--stop-after must be an integer from 1')
    expect(() => parseSampleNodeArgs(['--chain', 'x', '--block-time', '5'])).toThrow('--block-time needs a synthetic chain')
    expect(() => parseSampleNodeArgs(['--synthetic', '0'])).toThrow('--synthetic must be an integer from 1')
    expect(() => parseSampleNodeArgs(['--fault-error-rate', '1.5'])).toThrow('probability')
    expect(() => parseSampleNodeArgs(['--block-time', '5', '--reorg-depth', '40'])).toThrow(
      '--reorg-depth must be an integer from 1 to 31',
    )
    expect(() => parseSampleNodeArgs(['--fault-latency-ms', 'x'])).toThrow('--fault-latency-ms')
    expect(() => parseSampleNodeArgs(['--bogus'])).toThrow("Unknown option '--bogus'")
  })
})
