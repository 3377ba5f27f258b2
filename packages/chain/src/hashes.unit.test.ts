import { createHash } from 'node:crypto'
import { keccak256 } from 'viem'
import { expect, test } from 'vitest'
import { hashesReady, keccak256Bytes, sha256Pair } from './hashes.js'

const data = Uint8Array.from({ length: 540 }, (_, i) => (i * 7) & 0xff)

test('default: the WebAssembly keccak256 and sha256 give the reference digests', async () => {
  // Before WebAssembly is ready the JS fallbacks answer; after, hash-wasm does: same digests.
  const early = [keccak256Bytes(data), sha256Pair(data.subarray(0, 32), data.subarray(32, 64))]
  await hashesReady()
  expect(Buffer.from(keccak256Bytes(data)).toString('hex')).toBe(keccak256(data).slice(2))
  expect(keccak256Bytes(new Uint8Array(0))).toEqual(keccak256(new Uint8Array(0), 'bytes'))
  expect(sha256Pair(data.subarray(0, 32), data.subarray(32, 64))).toEqual(
    new Uint8Array(createHash('sha256').update(data.subarray(0, 64)).digest()),
  )
  expect([keccak256Bytes(data), sha256Pair(data.subarray(0, 32), data.subarray(32, 64))]).toEqual(early.map((d) => new Uint8Array(d)))
})
