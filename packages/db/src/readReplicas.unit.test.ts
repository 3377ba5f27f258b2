import { describe, expect, test } from 'vitest'
import { judgeReplica, lagFromSamples, parseLsn } from './readReplicas.js'

describe('parseLsn', () => {
  test('default: high and low halves in hex', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n)
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n)
  })
})

describe('lagFromSamples', () => {
  const samples = [
    { at: 1000, lsn: 100n },
    { at: 1250, lsn: 100n },
    { at: 1500, lsn: 180n },
    { at: 1750, lsn: 260n },
  ]
  test('default: a replica that replayed the latest position has no lag, however old it is', () => {
    expect(lagFromSamples(samples, 260n, 60_000)).toBe(0)
    expect(lagFromSamples([{ at: 0, lsn: 5n }], 5n, 1e9)).toBe(0)
  })
  test('behavior: the lag is the age of the first position not replayed', () => {
    expect(lagFromSamples(samples, 100n, 2000)).toBe(500)
    expect(lagFromSamples(samples, 200n, 2000)).toBe(250)
  })
  test('behavior: further behind than every sample: the age of the oldest', () => {
    expect(lagFromSamples(samples, 50n, 2000)).toBe(1000)
  })
  test('behavior: no samples yet: no lag can be told', () => {
    expect(lagFromSamples([], 1n, 5)).toBe(0)
  })
})

describe('judgeReplica', () => {
  const samples = [
    { at: 1000, lsn: 100n },
    { at: 1500, lsn: 180n },
  ]
  test('default: in recovery, caught up: usable, lag 0', () => {
    expect(judgeReplica({ inRecovery: true, replayLsn: '0/B4' }, samples, 1000, 5000)).toEqual({ usable: true, replicating: true, lagMs: 0, reason: null })
  })
  test('behavior: in recovery, behind past the bound: skipped with its lag', () => {
    expect(judgeReplica({ inRecovery: true, replayLsn: '0/64' }, samples, 1000, 3000)).toEqual({
      usable: false,
      replicating: true,
      lagMs: 1500,
      reason: 'lags 1500 ms (> 1000 ms)',
    })
  })
  test('error: not in recovery (a promoted replica restarted reports no replay position): never usable, no lag', () => {
    expect(judgeReplica({ inRecovery: false, replayLsn: null }, samples, 1000, 1500)).toEqual({
      usable: false,
      replicating: false,
      lagMs: null,
      reason: 'not a replica: not in recovery (promoted, or a primary)',
    })
    // A promoted replica before its restart still reports the position it replayed last.
    expect(judgeReplica({ inRecovery: false, replayLsn: '0/B4' }, samples, 1000, 1500).usable).toBe(false)
  })
  test('error: in recovery with no replay position: not usable', () => {
    expect(judgeReplica({ inRecovery: true, replayLsn: null }, samples, 1000, 1500)).toMatchObject({ usable: false, replicating: false, lagMs: null })
  })
})
