import { describe, expect, test } from 'vitest'
import { createFaults, hasFaults, parseLatencyRange } from './faults.js'

describe('createFaults', () => {
  test('default: no options, no faults', () => {
    const faults = createFaults({})
    for (let i = 0; i < 100; i++) expect(faults.decide()).toEqual({ kind: 'none', delayMs: 0 })
    expect(hasFaults({})).toBe(false)
    expect(hasFaults({ errorRate: 0.1 })).toBe(true)
  })

  test('args: errorRate spreads over HTTP 500, 502, 503 and JSON-RPC errors at about the rate', () => {
    const faults = createFaults({ errorRate: 0.2, seed: 3 })
    const statuses = new Set<number>()
    for (let i = 0; i < 10_000; i++) {
      const decision = faults.decide()
      if (decision.kind === 'httpError') statuses.add(decision.status)
    }
    const counts = faults.counts()
    expect((counts.httpError + counts.rpcError) / 10_000).toBeGreaterThan(0.18)
    expect((counts.httpError + counts.rpcError) / 10_000).toBeLessThan(0.22)
    expect(counts.rpcError).toBeGreaterThan(400)
    expect([...statuses].sort()).toEqual([500, 502, 503])
  })

  test('args: dropRate drops before or after the headers; latency stays in its range', () => {
    const faults = createFaults({ dropRate: 0.5, latencyMs: [10, 20] })
    const afterHeaders = new Set<boolean>()
    for (let i = 0; i < 1000; i++) {
      const decision = faults.decide()
      if (decision.kind === 'rateLimited') throw new Error('not configured')
      expect(decision.delayMs).toBeGreaterThanOrEqual(10)
      expect(decision.delayMs).toBeLessThanOrEqual(20)
      if (decision.kind === 'drop') afterHeaders.add(decision.afterHeaders)
    }
    expect(faults.counts().drop).toBeGreaterThan(400)
    expect(afterHeaders.size).toBe(2)
  })

  test('args: rateLimitRps limits each one-second window', () => {
    let now = 0
    const faults = createFaults({ rateLimitRps: 3 }, () => now)
    const kinds = () => Array.from({ length: 5 }, () => faults.decide().kind)
    expect(kinds()).toEqual(['none', 'none', 'none', 'rateLimited', 'rateLimited'])
    now = 999
    expect(faults.decide()).toEqual({ kind: 'rateLimited', retryAfterSeconds: 1 })
    now = 1000
    expect(kinds()).toEqual(['none', 'none', 'none', 'rateLimited', 'rateLimited'])
  })

  test('behavior: the same seed gives the same decisions', () => {
    const a = createFaults({ errorRate: 0.3, dropRate: 0.1, seed: 9 })
    const b = createFaults({ errorRate: 0.3, dropRate: 0.1, seed: 9 })
    for (let i = 0; i < 200; i++) expect(a.decide()).toEqual(b.decide())
  })
})

describe('parseLatencyRange', () => {
  test('default', () => {
    expect(parseLatencyRange('50-500')).toEqual([50, 500])
    expect(parseLatencyRange('200')).toEqual([200, 200])
  })
  test('error: bad ranges', () => {
    expect(parseLatencyRange('500-50')).toBeUndefined()
    expect(parseLatencyRange('-5')).toBeUndefined()
    expect(parseLatencyRange('a-b')).toBeUndefined()
  })
})
