import { describe, expect, test } from 'vitest'
import { classifyFailure, parseRetryAfter } from './failure.js'

const now = Date.parse('2026-11-24T12:00:00Z')

describe('classifyFailure', () => {
  test('default: a node that is busy, slow or gone is retried and slowed down for', () => {
    expect(classifyFailure({ kind: 'http status', status: 429, retryAfter: '2' }, now)).toEqual({ retryable: true, throttled: true, retryAfterMs: 2000, reason: 'HTTP 429' })
    expect(classifyFailure({ kind: 'http status', status: 503, retryAfter: null }, now)).toEqual({ retryable: true, throttled: true, reason: 'HTTP 503' })
    expect(classifyFailure({ kind: 'http status', status: 408, retryAfter: null }, now)).toMatchObject({ retryable: true, throttled: true })
    expect(classifyFailure({ kind: 'timeout' }, now)).toEqual({ retryable: true, throttled: true, reason: 'timeout' })
    expect(classifyFailure({ kind: 'connection' }, now)).toEqual({ retryable: true, throttled: true, reason: 'connection failed' })
    expect(classifyFailure({ kind: 'rpc error', code: -32005 }, now)).toEqual({ retryable: true, throttled: true, reason: 'rate limited (-32005)' })
  })

  test('error: a request the node rejects as wrong is not retried', () => {
    for (const status of [400, 401, 404, 413]) expect(classifyFailure({ kind: 'http status', status, retryAfter: null }, now)).toEqual({ retryable: false, throttled: false, reason: `HTTP ${status}` })
    for (const code of [-32600, -32601, -32602]) expect(classifyFailure({ kind: 'rpc error', code }, now)).toEqual({ retryable: false, throttled: false, reason: `JSON-RPC error ${code}` })
  })

  test('behavior: other JSON-RPC errors and unreadable answers are retried without slowing down', () => {
    expect(classifyFailure({ kind: 'rpc error', code: -32000 }, now)).toEqual({ retryable: true, throttled: false, reason: 'JSON-RPC error -32000' })
    expect(classifyFailure({ kind: 'rpc error', code: 'x' }, now)).toEqual({ retryable: true, throttled: false, reason: 'JSON-RPC error 0' })
    expect(classifyFailure({ kind: 'unreadable', reason: 'missing from the batch answer' }, now)).toEqual({ retryable: true, throttled: false, reason: 'missing from the batch answer' })
  })
})

describe('parseRetryAfter', () => {
  test('args: delta-seconds, an HTTP date, absent or unreadable', () => {
    expect(parseRetryAfter('0', now)).toBe(0)
    expect(parseRetryAfter('1.5', now)).toBe(1500)
    expect(parseRetryAfter('Tue, 24 Nov 2026 12:00:03 GMT', now)).toBe(3000)
    expect(parseRetryAfter('Tue, 24 Nov 2026 11:59:00 GMT', now)).toBe(0)
    expect(parseRetryAfter(null, now)).toBeUndefined()
    expect(parseRetryAfter('soon', now)).toBeUndefined()
  })
})
