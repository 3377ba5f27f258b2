import { describe, expect, test } from 'vitest'
import { UpstreamRefusedError } from './errors.js'
import { classifyFailure } from './failure.js'
import { createGovernor } from './governor.js'
import type { EntryOutcome } from './httpBatch.js'
import { createRequestMany, type UpstreamRequest, worstFailure } from './requestMany.js'

// The transport is a function here: what it answers per request is the test's input.
const requests = (n: number): UpstreamRequest[] => Array.from({ length: n }, (_, i) => ({ method: 'eth_getBlockByNumber', params: [i] }))
const answerWith = (answer: (r: UpstreamRequest) => EntryOutcome) => async (chunk: UpstreamRequest[]) => chunk.map(answer)

describe('createRequestMany', () => {
  test('default: chunks of chunkSize, results in request order, each sent once', async () => {
    const chunks: number[] = []
    const requestMany = createRequestMany({
      send: async (chunk) => {
        chunks.push(chunk.length)
        return chunk.map((r) => ({ ok: true, result: { n: r.params[0] } }))
      },
      chunkSize: 4,
      governor: createGovernor({ max: 2 }),
    })
    const settled = await requestMany(requests(10))
    expect(chunks.sort()).toEqual([2, 4, 4])
    expect(settled).toEqual(requests(10).map((_, i) => ({ ok: true, result: { n: i } })))
  })

  test('behavior: a failed request and a result `accept` refuses come back failed, not asked again', async () => {
    let sent = 0
    const requestMany = createRequestMany({
      send: async (chunk) => {
        sent += chunk.length
        return chunk.map((r) =>
          r.params[0] === 1 ? { ok: false, failure: classifyFailure({ kind: 'timeout' }) } : { ok: true, result: r.params[0] === 2 ? null : 'block' },
        )
      },
      chunkSize: 10,
      governor: createGovernor({ max: 1 }),
    })
    const settled = await requestMany(requests(3))
    expect(sent).toBe(3)
    expect(settled).toEqual([
      { ok: true, result: 'block' },
      { ok: false, failure: { retryable: true, throttled: true, reason: 'timeout' } },
      { ok: false, failure: { retryable: true, throttled: false, reason: 'missing result (node behind?)' } },
    ])
    expect(worstFailure(settled)?.reason).toBe('timeout')
  })

  test('behavior: a throttled chunk halves the governor window and honours Retry-After', async () => {
    const governor = createGovernor({ max: 8 })
    const requestMany = createRequestMany({
      send: answerWith(() => ({ ok: false, failure: classifyFailure({ kind: 'http status', status: 429, retryAfter: '0' }) })),
      chunkSize: 5,
      governor,
    })
    await requestMany(requests(5))
    expect(governor.limit).toBe(4)
  })

  test('error: a request the node rejects as wrong throws UpstreamRefusedError naming the method', async () => {
    const requestMany = createRequestMany({
      send: answerWith(() => ({ ok: false, failure: classifyFailure({ kind: 'rpc error', code: -32602 }) })),
      chunkSize: 5,
      governor: createGovernor({ max: 1 }),
    })
    await expect(requestMany(requests(2))).rejects.toThrow(new UpstreamRefusedError('eth_getBlockByNumber failed: JSON-RPC error -32602'))
    await expect(requestMany(requests(2))).rejects.toBeInstanceOf(UpstreamRefusedError)
  })
})
