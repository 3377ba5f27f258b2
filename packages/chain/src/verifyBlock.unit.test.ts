import { describeWithFixtures, readFixtureJson } from '@uncle-rpc/testing'
import { expect, test } from 'vitest'
import { headerFromRpc } from './codecs.js'
import { hashHeader } from './hashHeader.js'
import type { HashedHeader } from './header.js'
import { BlockVerificationError, verifyBlock } from './verifyBlock.js'

const mainnet = 'mainnet-era1/mainnet_0-8191_blocks_with_uncles.json'
type MainnetBlocks = { blocks: { number: number; header: Record<string, unknown>; uncles: Record<string, unknown>[] }[] }

/** Runs `fn` and returns the BlockVerificationError it throws. */
function catchVerification(fn: () => void): BlockVerificationError {
  try {
    fn()
  } catch (error) {
    if (error instanceof BlockVerificationError) return error
    throw error
  }
  throw new Error('expected a BlockVerificationError')
}

describeWithFixtures([mainnet], 'verifyBlock on mainnet blocks', () => {
  const { blocks } = readFixtureJson<MainnetBlocks>(mainnet)
  const load = (number: number): { block: HashedHeader; uncles: HashedHeader[] } => {
    const found = blocks.find((b) => b.number === number)!
    return { block: headerFromRpc(found.header), uncles: found.uncles.map(headerFromRpc) }
  }
  const b668 = load(668)
  const b97 = load(97) // two uncles

  test('default: real blocks pass, with and without their listed uncle hashes', () => {
    for (const { block, uncles } of [b668, b97]) {
      expect(() => verifyBlock(block, uncles)).not.toThrow()
      expect(() =>
        verifyBlock({ ...block, uncles: uncles.map((u) => u.hash.toUpperCase().replace('0X', '0x') as `0x${string}`) }, uncles),
      ).not.toThrow()
    }
    expect(b97.uncles.length).toBe(2)
  })

  test('error: a tampered header field', () => {
    const error = catchVerification(() => verifyBlock({ ...b668.block, gasUsed: 1n }, b668.uncles))
    expect(error.mismatch.what).toBe('blockHash')
    expect(error.blockNumber).toBe(668n)
    expect(error.message).toMatchInlineSnapshot(
      `"Block 668 (0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b) failed verification: header hashes to 0x46bb09d41632b4f5b4fe10dae40d503105d6788cc411485f7af61fda5d38a032, not to its claimed hash 0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b"`,
    )
  })

  test('error: a tampered uncle (its claimed hash kept)', () => {
    const uncles = [b97.uncles[0]!, { ...b97.uncles[1]!, extraData: '0x00' as const }]
    const error = catchVerification(() => verifyBlock(b97.block, uncles))
    expect(error.mismatch).toMatchObject({ what: 'uncleHash', index: 1 })
    expect(error.message).toMatchInlineSnapshot(
      `"Block 97 (0xe9fb121a7ee5cb03b33adbf59e95321a2453f09db98068e1f31f0da79860c50c) failed verification: uncle 1 hashes to 0x781a0df22133352267fa37079411617f77c82616831175a9dba8c7349fe2daf6, not to its claimed hash 0xfe426f2eb0adc88f05ea737da1ebb79e03bca546563ad74bda7bffeb37ad4d6a"`,
    )
  })

  test('error: a tampered uncle with a recomputed hash no longer matches sha3Uncles', () => {
    const changed = { ...b668.uncles[0]!, timestamp: 1n }
    const error = catchVerification(() => verifyBlock(b668.block, [{ ...changed, hash: hashHeader(changed) }]))
    expect(error.mismatch.what).toBe('sha3Uncles')
  })

  test('error: a wrong sha3Uncles (header re-hashed so only the uncle list disagrees)', () => {
    const header = { ...b668.block, sha3Uncles: b97.block.sha3Uncles }
    const error = catchVerification(() => verifyBlock({ ...header, hash: hashHeader(header) }, b668.uncles))
    expect(error.mismatch).toEqual({ what: 'sha3Uncles', expected: b97.block.sha3Uncles, computed: b668.block.sha3Uncles })
    expect(error.message).toMatchInlineSnapshot(
      `"Block 668 (0x3ce51f4f20f8f9ad5a8f632f08549645f4da0d29db5b2dd561f553474a66bc99) failed verification: uncle list hashes to 0x32e46d62861577c6fc8ce5fc911886e16ea63c2aa60de891863d52f82dd915a4, but sha3Uncles is 0x27e6b6ad4e6d50ef76ec5c1a8b09a6f852ef5d589fe8d87873f5935a9fef1bba"`,
    )
  })

  test('error: an uncle missing from the list given', () => {
    const error = catchVerification(() => verifyBlock(b97.block, b97.uncles.slice(0, 1)))
    expect(error.mismatch.what).toBe('sha3Uncles')
  })

  test('error: a wrong uncle count against the block’s listed uncle hashes', () => {
    const listed = b97.uncles.map((u) => u.hash)
    const error = catchVerification(() => verifyBlock({ ...b97.block, uncles: listed }, b97.uncles.slice(0, 1)))
    expect(error.mismatch).toEqual({ what: 'uncleCount', expected: 2, got: 1 })
    expect(error.message).toMatchInlineSnapshot(
      `"Block 97 (0xe9fb121a7ee5cb03b33adbf59e95321a2453f09db98068e1f31f0da79860c50c) failed verification: block lists 2 uncles but 1 uncle headers were given"`,
    )
  })

  test('error: uncles given in another order than the block lists them', () => {
    const listed = b97.uncles.map((u) => u.hash)
    const error = catchVerification(() => verifyBlock({ ...b97.block, uncles: listed }, [...b97.uncles].reverse()))
    expect(error.mismatch).toMatchObject({ what: 'uncleHashList', index: 0 })
    expect(error.message).toMatchInlineSnapshot(
      `"Block 97 (0xe9fb121a7ee5cb03b33adbf59e95321a2453f09db98068e1f31f0da79860c50c) failed verification: block lists uncle 0 as 0xacfa207ce9d5139b85ecfdc197f8d283fc241f95f176f008f44aab35ef1f901f but the uncle header is 0xfe426f2eb0adc88f05ea737da1ebb79e03bca546563ad74bda7bffeb37ad4d6a"`,
    )
  })

  test('behavior: the error is a BaseError with a short message', () => {
    const error = catchVerification(() => verifyBlock({ ...b668.block, gasUsed: 1n }, b668.uncles))
    expect(error.name).toBe('BlockVerificationError')
    expect(error.shortMessage).toBe(error.message)
  })
})
