import { describe, expect, test } from 'vitest'
import { seededRandom } from '@uncle-rpc/testing'
import { createCalls } from './calls.js'
import { mergeWindows, missedThresholds, rssGrowth, summarize, type Window } from './summary.js'

const window = (requests: number, reasons: [string, number][], latencies: number[] = [1, 2, 3]): Window => ({
  requests,
  failed: reasons.reduce((sum, [, n]) => sum + n, 0),
  reasons: new Map(reasons),
  latencies,
})
const equalChain = { equal: true, duplicates: 0, blocks: 10, replacedBlocks: 1, detail: '10 blocks equal' }

describe('soak summary', () => {
  test('behavior: the documented "index cannot answer" answers are kept apart from the failures, wrong answers are not', () => {
    const tally = mergeWindows([
      window(1000, [['unknown/http unavailable: rpc -32603 index cannot answer', 30], ['known/http wrong: null', 1]]),
      window(500, [['batch/ws closed 1001', 2], ['unknown/http rpc -32603 index cannot answer (no postgres outage)', 4]]),
    ])
    expect(tally).toMatchObject({ requests: 1500, failed: 7, unavailable: 30 })
    expect([...tally.failedBy.keys()]).not.toContain('unknown/http unavailable: rpc -32603 index cannot answer')
    expect(tally.latencies).toEqual([1, 1, 2, 2, 3, 3])
  })

  test('behavior: RSS growth is measured per process from the first sample of the one alive at the end', () => {
    const samples = [
      { 'indexer-1': { pid: 1, mb: 100 }, 'rpc-1': { pid: 3, mb: 120 } },
      { 'indexer-1': { pid: 2, mb: 60 }, 'rpc-1': { pid: 3, mb: 150 } },
      { 'indexer-1': { pid: 2, mb: 190 }, 'rpc-1': { pid: 3, mb: 160 } },
    ]
    // indexer-1 was restarted (pid 2): 60 → 190, not 100 → 190; rpc-1: 120 → 160.
    expect(rssGrowth(samples, ['indexer-1', 'rpc-1'])).toEqual({ mb: 130, of: 'indexer-1' })
  })

  test('behavior: the acceptance thresholds, each missed on its own', () => {
    const pass = summarize(4, mergeWindows([window(10_000, [['known/http timeout', 10]])]), [1, 2, 3, 4].map((minute) => ({ minute, fault: 'x', ok: true, recoveredMs: 1 })), { mb: 12, of: 'rpc-1' }, equalChain)
    expect(missedThresholds(pass)).toEqual([])
    expect(missedThresholds({ ...pass, failed: 11, failedShare: 0.0011 })).toEqual(['failed 11 of 10000 (> 0.1%)'])
    expect(missedThresholds({ ...pass, chainEqualsNode: false, chainDetail: 'block 5 differs' })).toEqual(["the index differs from the node's chain: block 5 differs"])
    expect(missedThresholds({ ...pass, duplicates: 2 })).toEqual(['2 rows indexed twice'])
    expect(missedThresholds({ ...pass, faults: 2 })).toEqual(['2 faults carried out and recovered (< 3)'])
    expect(missedThresholds({ ...pass, rssGrowthMb: 101 })).toEqual(['RSS of rpc-1 grew 101 MB (> 100)'])
  })
})

describe('soak calls', () => {
  const known = [{ blockHash: `0x${'11'.repeat(32)}`, index: '0x0', hash: `0x${'22'.repeat(32)}` }]
  const calls = createCalls(seededRandom(7), () => known)
  const made = Array.from({ length: 200 }, (_, n) => calls.make(n))
  const of = (kind: string) => made.find((c) => c.kind === kind)!
  const answer = (body: string, result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: (JSON.parse(body) as { id: number }).id, result })

  test('behavior: a known uncle must come back as that uncle, an unknown hash as null', () => {
    const knownCall = of('known')
    expect(knownCall.check(answer(knownCall.body, { hash: known[0]!.hash }))).toBeUndefined()
    expect(knownCall.check(answer(knownCall.body, null))).toBe('wrong: null')
    const unknownCall = of('unknown')
    expect(unknownCall.check(answer(unknownCall.body, null))).toBeUndefined()
    expect(unknownCall.check(answer(unknownCall.body, { hash: '0x' }))).toBe('wrong: not null')
  })

  test('behavior: in a batch a wrong entry outweighs an entry the index could not answer', () => {
    const batch = of('batch')
    const entries = JSON.parse(batch.body) as { id: number; params: [string, string] }[]
    const right = entries.map((e) => ({ jsonrpc: '2.0', id: e.id, result: e.params[0] === known[0]!.blockHash ? { hash: known[0]!.hash } : null }))
    expect(batch.check(JSON.stringify(right))).toBeUndefined()
    const unavailable = { code: -32603, message: 'the index cannot answer right now (database unavailable or too slow)' }
    const withUnavailable = right.map((a, i) => (i === 9 ? { jsonrpc: '2.0', id: a.id, error: unavailable } : a))
    expect(batch.check(JSON.stringify(withUnavailable))).toBe('unavailable: rpc -32603 index cannot answer')
    const alsoWrong = withUnavailable.map((a, i) => (i === 0 ? { ...a, result: null } : a))
    expect(batch.check(JSON.stringify(alsoWrong))).toBe('wrong: null')
  })
})
