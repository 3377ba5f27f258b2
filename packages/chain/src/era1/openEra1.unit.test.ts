import { readFileSync } from 'node:fs'
import { describeWithFixtures, fixturePath, readFixtureJson, readFixtureJsonl } from '@uncle-rpc/testing'
import { expect, test } from 'vitest'
import { toRpcUncle } from '../rpcFormat.js'
import { concat, e2Record, era1BlockInput, writeEra1 } from './_test/writeEra1.js'
import { Era1BlockRangeError, Era1FormatError } from './errors.js'
import { openEra1 } from './openEra1.js'

const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'
const uncleLines = 'derived/geth_eth_getUncleByBlockHashAndIndex_mainnet_0-8191.jsonl'
const withUncles = 'mainnet-era1/mainnet_0-8191_blocks_with_uncles.json'

/** Runs `fn` and returns what it throws. */
function thrown(fn: () => unknown): Error {
  try {
    fn()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected an error')
}

describeWithFixtures([era1, uncleLines, withUncles], 'mainnet-00000-5ec1ffb8.era1', () => {
  const bytes = readFileSync(fixturePath(era1))
  const file = openEra1(bytes)

  test('default: opens blocks 0–8191 with the stored accumulator root', () => {
    expect({ startNumber: file.startNumber, count: file.count, accumulatorRoot: file.accumulatorRoot }).toEqual({
      startNumber: 0n,
      count: 8192,
      accumulatorRoot: '0x5ec1ffb8c3b146f42606c74ced973dc16ec5a107c0345858c343fc94780b4218',
    })
    const genesis = file.block(0n)
    expect(genesis.header.hash).toBe('0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3')
    expect(genesis.totalDifficulty).toBe(genesis.header.difficulty)
    expect(file.block(8191n).header.number).toBe(8191n)
  })

  test('default: block 668 uncle 0 is the derived geth answer', () => {
    const line = readFixtureJsonl<{ blockNumber: number; index: string; blockHash: string; result: unknown }>(uncleLines).find(
      (l) => Number(l.blockNumber) === 668 && l.index === '0x0',
    )!
    const block = file.block(668n)
    expect(block.header.hash).toBe(line.blockHash)
    expect(JSON.stringify(toRpcUncle(block.uncles[0]!, { totalDifficulty: 'omit' }))).toBe(JSON.stringify(line.result))
  })

  test('behavior: every block with uncles matches the decoded JSON (hash, uncle hashes, total difficulty)', () => {
    const { blocks } = readFixtureJson<{
      blocks: { number: number; hash: string; totalDifficulty: string; uncles: { hash: string }[] }[]
    }>(withUncles)
    for (const expected of blocks) {
      const block = file.block(BigInt(expected.number))
      expect(block.header.hash).toBe(expected.hash)
      expect(block.totalDifficulty).toBe(BigInt(expected.totalDifficulty))
      expect(block.uncles.map((u) => u.hash)).toEqual(expected.uncles.map((u) => u.hash))
    }
  })

  test('error: block numbers outside the file', () => {
    expect(thrown(() => file.block(8192n))).toMatchInlineSnapshot(
      `[Era1BlockRangeError: Block 8192 is not in this era1 file (it holds blocks 0–8191)]`,
    )
    expect(thrown(() => file.block(-1n))).toBeInstanceOf(Era1BlockRangeError)
    expect(thrown(() => file.receipts(10_000n))).toBeInstanceOf(Era1BlockRangeError)
  })

  test('error: a flipped byte inside a block’s compressed header is caught by its checksum', () => {
    const copy = new Uint8Array(bytes)
    const headerRecordStart = recordStart(copy, 668)
    copy[headerRecordStart + 8 + 10 + 8 + 20]! ^= 0x40 // inside the first compressed chunk's data
    const broken = openEra1(copy)
    const error = thrown(() => broken.block(668n))
    expect(error).toBeInstanceOf(Era1FormatError)
    expect(error.message).toMatchInlineSnapshot(`
      "Invalid era1 file in block 668 (byte 333576): CompressedHeader record is corrupt

      Details: Invalid snappy framed stream at byte 10: checksum mismatch: chunk says 0x0d3c80c3, data gives 0xb1c9b709"
    `)
    expect(() => broken.block(667n)).not.toThrow()
  })

  test('error: a flipped byte in a record header or the block index is caught when opening', () => {
    const flipped = (at: number, mask = 0x01) => {
      const copy = new Uint8Array(bytes)
      copy[at]! ^= mask
      return copy
    }
    expect(thrown(() => openEra1(flipped(0))).message).toMatchInlineSnapshot(
      `"Invalid era1 file at byte 0: expected Version record (type 0x3265), found type 0x3264"`,
    )
    expect(thrown(() => openEra1(flipped(recordStart(bytes, 5) + 2))).message).toMatchInlineSnapshot(
      `"Invalid era1 file in block 5 (byte 2898): expected CompressedBody record (type 0x4), found type 0x4f3"`,
    ) // header record length
    expect(thrown(() => openEra1(flipped(recordStart(bytes, 5) + 7))).message).toMatchInlineSnapshot(
      `"Invalid era1 file in block 5 (byte 2582): record reserved bytes are 0x100, not 0"`,
    ) // reserved
    expect(thrown(() => openEra1(flipped(bytes.length - 8 * 100))).message).toMatchInlineSnapshot(
      `"Invalid era1 file in block 8093 (byte 3825777): block index points at byte 3781437, but the block's records start at byte 3781438"`,
    ) // an index offset
    expect(thrown(() => openEra1(flipped(bytes.length - 8))).message).toMatchInlineSnapshot(
      `"Invalid era1 file at byte 3891329: block index count is 8193, expected 1–8192"`,
    ) // the count
    expect(thrown(() => openEra1(bytes.subarray(0, bytes.length - 1))).message).toMatchInlineSnapshot(
      `"Invalid era1 file at byte 3891328: block index count is 2097407, expected 1–8192"`,
    )
  })
})

/** Byte offset of block i's CompressedHeader record, read from the BlockIndex. */
function recordStart(bytes: Uint8Array, i: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const count = Number(view.getBigUint64(bytes.length - 8, true))
  const indexStart = bytes.length - 8 - 16 - 8 * count
  return indexStart + Number(view.getBigInt64(indexStart + 16 + 8 * i, true))
}

describeWithFixtures([era1], 'synthetic era1 files (re-encoded mainnet blocks)', () => {
  const source = openEra1(readFileSync(fixturePath(era1)))
  const inputs = Array.from({ length: 8 }, (_, i) => era1BlockInput(source, 95n + BigInt(i)))

  test('default: a written file reads back the same blocks, starting at any number', () => {
    const file = openEra1(writeEra1(inputs, { startNumber: 95n }))
    expect([file.startNumber, file.count]).toEqual([95n, 8])
    for (let n = 95n; n < 103n; n++) expect(file.block(n)).toEqual(source.block(n))
  })

  test('behavior: other entries between the last block and the accumulator are skipped', () => {
    const written = writeEra1(inputs, { startNumber: 95n })
    const tail = 40 + 8 + 16 + 8 * inputs.length // Accumulator + BlockIndex
    const withExtra = concat([
      written.subarray(0, written.length - tail),
      e2Record(0x1234, Uint8Array.of(1, 2, 3)),
      written.subarray(written.length - tail),
    ])
    // the index offsets are relative to the index itself, which moved by the 11 inserted bytes
    const view = new DataView(withExtra.buffer)
    const indexStart = withExtra.length - 8 - 16 - 8 * inputs.length
    for (let i = 0; i < inputs.length; i++) {
      const at = indexStart + 16 + 8 * i
      view.setBigInt64(at, view.getBigInt64(at, true) - 11n, true)
    }
    expect(openEra1(withExtra).block(100n)).toEqual(source.block(100n))
  })

  test('error: a block whose header number disagrees with the index', () => {
    const file = openEra1(writeEra1(inputs, { startNumber: 96n }))
    expect(thrown(() => file.block(96n))).toMatchInlineSnapshot(
      `[Era1VerificationError: Era1 block 96 failed verification: header number is 95, expected 96 from the block index]`,
    )
  })
})
