import { concat, type Hex, keccak256, numberToHex, sha256, toHex } from 'viem'
import { expect, test } from 'vitest'
import { epochAccumulatorRoot, type HeaderRecord } from './accumulator.js'

/** The SSZ definition written out the slow way: pad to 8192 leaves, hash pairs up 13 levels, mix in the length. */
function referenceRoot(records: readonly HeaderRecord[]): Hex {
  const le32 = (v: bigint) => numberToHex(v, { size: 32 }).slice(2).match(/../g)!.reverse().join('')
  let layer: Hex[] = records.map((r) => sha256(concat([r.blockHash, `0x${le32(r.totalDifficulty)}`])))
  while (layer.length < 8192) layer.push(`0x${'00'.repeat(32)}`)
  while (layer.length > 1)
    layer = Array.from({ length: layer.length / 2 }, (_, i) => sha256(concat([layer[2 * i]!, layer[2 * i + 1]!])))
  return sha256(concat([layer[0]!, `0x${le32(BigInt(records.length))}`]))
}

const records = (n: number): HeaderRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    blockHash: keccak256(toHex(i)),
    totalDifficulty: BigInt(i) * 0x3ff800000n + 2n ** 200n,
  }))

test('default: matches the SSZ definition for 0, 1, 3 and 8192 records', () => {
  for (const n of [0, 1, 3, 8192]) expect(epochAccumulatorRoot(records(n))).toBe(referenceRoot(records(n)))
})

test('behavior: the root commits to order, hashes and difficulties', () => {
  const base = records(4)
  const root = epochAccumulatorRoot(base)
  expect(epochAccumulatorRoot([...base].reverse())).not.toBe(root)
  expect(epochAccumulatorRoot(base.map((r, i) => (i === 2 ? { ...r, totalDifficulty: r.totalDifficulty + 1n } : r)))).not.toBe(
    root,
  )
  expect(epochAccumulatorRoot(base.slice(0, 3))).not.toBe(root)
})

test('error: more than 8192 records', () => {
  expect(() => epochAccumulatorRoot(records(8193))).toThrowErrorMatchingInlineSnapshot(
    `[EpochOverflowError: An epoch holds at most 8192 header records, got 8193]`,
  )
})
