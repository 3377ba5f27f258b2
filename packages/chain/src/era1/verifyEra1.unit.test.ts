import { readFileSync } from 'node:fs'
import { describeWithFixtures, fixturePath } from '@uncle-rpc/testing'
import fc from 'fast-check'
import { fromRlp, type Hex, hexToBytes, toRlp } from 'viem'
import { expect, test } from 'vitest'
import { BaseError } from '@uncle-rpc/errors'
import { BlockVerificationError } from '../verifyBlock.js'
import { type Era1BlockInput, era1BlockInput, writeEra1 } from './_test/writeEra1.js'
import { Era1FormatError, Era1VerificationError } from './errors.js'
import { openEra1 } from './openEra1.js'
import { verifyEra1 } from './verifyEra1.js'

const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'

/** Runs `fn` and returns what it throws. */
function thrown(fn: () => unknown): Error {
  try {
    fn()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected an error')
}

/** Byte offset of block i's record `k` (0 header, 1 body, 2 receipts, 3 total difficulty). */
function recordStart(bytes: Uint8Array, i: number, k = 0): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const count = Number(view.getBigUint64(bytes.length - 8, true))
  const indexStart = bytes.length - 8 - 16 - 8 * count
  let at = indexStart + Number(view.getBigInt64(indexStart + 16 + 8 * i, true))
  for (let j = 0; j < k; j++) at += 8 + view.getUint32(at + 2, true)
  return at
}

describeWithFixtures([era1], 'mainnet-00000-5ec1ffb8.era1', () => {
  const bytes = readFileSync(fixturePath(era1))

  test('default: every block verifies and the accumulator root is the stored one', () => {
    const seen: bigint[] = []
    expect(verifyEra1(openEra1(bytes), { onBlock: (block) => seen.push(block.header.number) })).toEqual({
      blocks: 8192,
      uncles: 1410,
      accumulatorRoot: '0x5ec1ffb8c3b146f42606c74ced973dc16ec5a107c0345858c343fc94780b4218',
    })
    expect(seen.length).toBe(8192)
    expect(seen.every((n, i) => n === BigInt(i))).toBe(true)
  })

  test('error: a corrupted copy (byte flipped in block 5’s compressed header) is rejected', () => {
    const copy = new Uint8Array(bytes)
    copy[recordStart(copy, 5) + 40]! ^= 0x04
    const error = thrown(() => verifyEra1(openEra1(copy)))
    expect(error).toBeInstanceOf(Era1FormatError)
    expect((error as Era1FormatError).blockNumber).toBe(5n)
    expect(error.message).toMatchInlineSnapshot(`
      "Invalid era1 file in block 5 (byte 2582): CompressedHeader record is corrupt

      Details: Invalid snappy framed stream at byte 10: checksum mismatch: chunk says 0xf90e7ca1, data gives 0x60412ff1"
    `)
  })

  test('error: a flipped byte in receipts or total difficulty is rejected', () => {
    const receipts = new Uint8Array(bytes)
    receipts[recordStart(receipts, 3, 2) + 8 + 10 + 4]! ^= 0x01 // the receipts chunk's stored CRC
    expect(thrown(() => verifyEra1(openEra1(receipts))).message).toMatchInlineSnapshot(`
      "Invalid era1 file in block 3 (byte 1805): CompressedReceipts record is corrupt

      Details: Invalid snappy framed stream at byte 10: checksum mismatch: chunk says 0x8dae0eb9, data gives 0x8dae0eb8"
    `)
    const td = new Uint8Array(bytes)
    td[recordStart(td, 10, 3) + 8 + 2]! ^= 0x01
    expect(thrown(() => verifyEra1(openEra1(td))).message).toMatchInlineSnapshot(
      `"Era1 block 10 failed verification: total difficulty is 188768948265, expected 188768882729 (previous total + difficulty)"`,
    )
  })
})

describeWithFixtures([era1], 'synthetic era1 files', () => {
  const source = openEra1(readFileSync(fixturePath(era1)))
  const inputs = Array.from({ length: 8 }, (_, i) => era1BlockInput(source, 95n + BigInt(i)))
  const write = (blocks: Era1BlockInput[], options: { accumulatorRoot?: Hex } = {}) =>
    openEra1(writeEra1(blocks, { startNumber: 95n, ...options }))

  test('default: a re-encoded run of blocks verifies', () => {
    expect(verifyEra1(write(inputs))).toMatchObject({ blocks: 8, uncles: 3 })
  })

  test('error: the stored accumulator root differs', () => {
    const error = thrown(() => verifyEra1(write(inputs, { accumulatorRoot: `0x${'00'.repeat(32)}` })))
    expect(error).toBeInstanceOf(Era1VerificationError)
    expect(error.message).toMatchInlineSnapshot(
      `"Era1 file failed verification: epoch accumulator root computes to 0xbc60a86cbaa12e964b792fbe99d19a86ea7cd63546f6ebdd7d771d291cc233e5, but the file stores 0x0000000000000000000000000000000000000000000000000000000000000000"`,
    )
  })

  test('error: a header whose parentHash does not link to the previous block', () => {
    const fields = fromRlp(inputs[2]!.headerRlp, 'hex') as Hex[]
    const headerRlp = hexToBytes(toRlp(fields.with(0, `0x${'ee'.repeat(32)}`)))
    const error = thrown(() => verifyEra1(write(inputs.with(2, { ...inputs[2]!, headerRlp }))))
    expect(error).toMatchObject({ blockNumber: 97n, mismatch: { what: 'parentHash' } })
    expect(error.message).toMatchInlineSnapshot(
      `"Era1 block 97 failed verification: parentHash is 0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee, but the previous block hashes to 0x350565a8da416084af658287442eef4f651bf944c6d804b5c3bdee5d7d951f80"`,
    )
  })

  test('error: a total difficulty that is not the previous total plus the difficulty', () => {
    const error = thrown(() =>
      verifyEra1(write(inputs.with(3, { ...inputs[3]!, totalDifficulty: inputs[3]!.totalDifficulty + 1n }))),
    )
    expect(error).toMatchObject({ blockNumber: 98n, mismatch: { what: 'totalDifficulty' } })
    expect(error.message).toMatchInlineSnapshot(
      `"Era1 block 98 failed verification: total difficulty is 1730934008657, expected 1730934008656 (previous total + difficulty)"`,
    )
  })

  test('error: a body whose uncles do not match sha3Uncles', () => {
    const withUncles = inputs.findIndex((b) => (fromRlp(b.bodyRlp, 'hex') as Hex[][])[1]!.length === 2)
    const [txs, uncles] = fromRlp(inputs[withUncles]!.bodyRlp, 'hex') as Hex[][][]
    const bodyRlp = hexToBytes(toRlp([txs!, [...uncles!].reverse()]))
    const error = thrown(() => verifyEra1(write(inputs.with(withUncles, { ...inputs[withUncles]!, bodyRlp }))))
    expect(error).toBeInstanceOf(BlockVerificationError)
    expect(error.message).toMatchInlineSnapshot(
      `"Block 97 (0xe9fb121a7ee5cb03b33adbf59e95321a2453f09db98068e1f31f0da79860c50c) failed verification: uncle list hashes to 0x83eacbae3b61b8ee4e23f9958a8170c36ccdbe03a8fc498481b3da13f5be5461, but sha3Uncles is 0x27e6b6ad4e6d50ef76ec5c1a8b09a6f852ef5d589fe8d87873f5935a9fef1bba"`,
    )
  })

  test('behavior: a single-byte corruption anywhere in a small file is rejected, or changes no decoded byte', () => {
    // Note: snappy can encode the same bytes in several ways (a run of zeros copied from offset 1
    // or 3), so a flip may leave the decoded content identical; that is not corruption of the data.
    const original = inputs.slice(0, 3)
    const good = writeEra1(original, { startNumber: 95n })
    const numbers = [95n, 96n, 97n]
    fc.assert(
      fc.property(fc.nat({ max: good.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, mask) => {
        const copy = good.slice()
        copy[at]! ^= mask
        let file: ReturnType<typeof openEra1>
        try {
          file = openEra1(copy)
          verifyEra1(file)
        } catch (error) {
          expect(error).toBeInstanceOf(BaseError)
          return
        }
        for (const n of numbers) {
          expect(file.block(n)).toEqual(source.block(n))
          expect(file.receipts(n)).toEqual(source.receipts(n))
        }
      }),
      { numRuns: 400 },
    )
  })
})
