import { hashesReady, openEra1, verifyEra1File } from '@uncle-rpc/chain'
import { expect, test } from 'vitest'
import type { ChainBlock } from '../chainSource.js'
import { createSyntheticChain } from './syntheticChain.js'
import { type SyntheticEra1File, writeSyntheticEra1 } from './writeSyntheticEra1.js'

test('default: the era1 files hold the same chain the sample node serves, and verify', async () => {
  await hashesReady()
  const blocks = 8192 + 300
  const files: SyntheticEra1File[] = []
  const result = await writeSyntheticEra1({ seed: 4, blocks, network: 'testnet', londonAt: 8000, onFile: (f) => void files.push(f) })
  expect(files.map((f) => [f.epoch, f.blocks, f.name.slice(0, 14)])).toEqual([
    [0, 8192, 'testnet-00000-'],
    [1, 300, 'testnet-00001-'],
  ])
  expect(result).toMatchObject({ files: 2, blocks, uncles: files[0]!.uncles + files[1]!.uncles })
  const chain = await createSyntheticChain({ seed: 4, blocks, londonAt: 8000, chainId: 1337n })
  for (const file of files) {
    const checked = verifyEra1File({ bytes: file.bytes, file: file.name })
    expect(checked).toMatchObject({ epoch: file.epoch, accumulatorRoot: file.accumulatorRoot, uncles: file.uncles })
    const era1 = openEra1(file.bytes)
    for (const n of [0, 1, 7999, 8000, 8191, 8192, 8491].map(BigInt)) {
      if (n < era1.startNumber || n >= era1.startNumber + BigInt(era1.count)) continue
      const expected = chain.blockByNumber(n) as ChainBlock
      const block = era1.block(n)
      expect(block.header).toEqual(expected.header)
      expect(block.uncles).toEqual(expected.uncles)
      expect(block.totalDifficulty).toBe(expected.totalDifficulty)
    }
    let uncles = 0
    for (let i = 0; i < era1.count; i++) {
      const n = era1.startNumber + BigInt(i)
      const ours = era1.rawBlock(n)
      uncles += ours.uncles.length
      expect(Buffer.from(ours.header.hash).toString('hex')).toBe((chain.blockByNumber(n) as ChainBlock).header.hash.slice(2))
    }
    expect(uncles).toBe(file.uncles)
  }
})

test('args: uncleRate sets the share of blocks with uncles; uncompressed files hold the same blocks', async () => {
  const write = async (options: { uncleRate?: number; uncompressed?: boolean }) => {
    const files: SyntheticEra1File[] = []
    await writeSyntheticEra1({ seed: 9, blocks: 4000, network: 'testnet', ...options, onFile: (f) => void files.push(f) })
    return files[0]!
  }
  const [none, many, plain, compressed] = await Promise.all([
    write({ uncleRate: 0 }),
    write({ uncleRate: 0.5 }),
    write({ uncompressed: true }),
    write({}),
  ])
  expect(none.uncles).toBe(0)
  // A fifth of the blocks with uncles have two: ~0.6 uncles per block at rate 0.5.
  expect(many.uncles / 4000).toBeGreaterThan(0.5)
  expect(many.uncles / 4000).toBeLessThan(0.7)
  expect(compressed.uncles / 4000).toBeGreaterThan(0.08)
  expect(plain.accumulatorRoot).toBe(compressed.accumulatorRoot)
  expect(plain.bytes.length).toBeGreaterThan(compressed.bytes.length)
})
