import { BlockVerificationError } from '@uncle-rpc/chain'
import { expect, test } from 'vitest'
import { BlocksRejectedError } from './errors.js'

test('behavior: blocks refused in verification: the first refusal is the cause, all of them are kept', () => {
  const [a, b] = [`0x${'ab'.repeat(32)}`, `0x${'cd'.repeat(32)}`] as const
  const first = new BlockVerificationError({ blockNumber: 7n, blockHash: a, mismatch: { what: 'blockHash', expected: a, computed: b } })
  const second = new BlockVerificationError({ blockNumber: 9n, blockHash: a, mismatch: { what: 'sha3Uncles', expected: a, computed: b } })
  const error = new BlocksRejectedError('mainnet', [{ number: 7n, error: first }, { number: 9n, error: second }])
  expect(error.cause).toBe(first)
  expect(error.rejected.map((r) => r.error)).toEqual([first, second])
  expect(error.shortMessage).toBe(`mainnet: 2 block(s) refused, not written: 7, 9 — ${first.shortMessage}`)
})
