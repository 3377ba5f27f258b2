import { expect, test } from 'vitest'
import { responseBytes, written } from './responseBytes.js'

const answer = { status: 200, body: '{"jsonrpc":"2.0","id":1,"result":"0x1"}' }
const idle = { writableLength: 0 } as Parameters<typeof written>[1]

test('behavior: a response that waits behind unsent writes is cut from a shared slab, not given the 64 KB scratch buffer', () => {
  const first = responseBytes(answer, true, Date.now(), false)
  expect(first.buffer.byteLength).toBe(64 * 1024)
  written(first, idle)
  // Backlogged: two responses share one slab, and neither is the scratch buffer.
  const second = responseBytes(answer, true, Date.now(), true)
  const third = responseBytes(answer, true, Date.now(), true)
  expect(second.buffer).not.toBe(first.buffer)
  expect(third.buffer).toBe(second.buffer)
  expect(second.toString()).toBe(first.toString())
})
