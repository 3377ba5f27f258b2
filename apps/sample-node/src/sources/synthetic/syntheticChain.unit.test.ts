import { type Hex, hashHeader } from '@uncle-rpc/chain'
import { describe, expect, test } from 'vitest'
import { verifyChainRange } from '../../_test/verifyChain.js'
import type { ChainBlock } from '../chainSource.js'
import { createSyntheticChain } from './syntheticChain.js'

describe('createSyntheticChain', () => {
  test('default: the first 20,000 blocks verify end to end (London from 10,000)', async () => {
    const chain = await createSyntheticChain({ seed: 1, blocks: 20_000, londonAt: 10_000, chainId: 1337n })
    const summary = verifyChainRange(chain, 0n, 19_999n)
    expect(summary.blocks).toBe(20_000)
    // ~8% of blocks carry uncles, 1 or 2 of them.
    expect(summary.blocksWithUncles / summary.blocks).toBeGreaterThan(0.07)
    expect(summary.blocksWithUncles / summary.blocks).toBeLessThan(0.09)
    expect(summary.maxUncles).toBe(2)
    const before = chain.blockByNumber(9_999n) as ChainBlock
    const london = chain.blockByNumber(10_000n) as ChainBlock
    expect(before.header.baseFeePerGas).toBeUndefined()
    expect(london.header.baseFeePerGas).toBe(1_000_000_000n)
    expect((chain.blockByNumber(19_999n) as ChainBlock).header.baseFeePerGas).toBeTypeOf('bigint')
    const miners = new Set<Hex>()
    for (let n = 1n; n < 2000n; n++) miners.add((chain.blockByNumber(n) as ChainBlock).header.miner)
    expect(miners.size).toBeGreaterThan(10)
    expect(miners.size).toBeLessThanOrEqual(20)
  })

  test('behavior: the genesis block and a block with uncles, field by field', async () => {
    const chain = await createSyntheticChain({ seed: 7, blocks: 200, chainId: 1337n })
    const genesis = chain.blockByNumber(0n) as ChainBlock
    expect(genesis.header.parentHash).toBe(`0x${'0'.repeat(64)}`)
    expect(genesis.header.difficulty).toBe(0x4_0000_0000n)
    expect(genesis.totalDifficulty).toBe(genesis.header.difficulty)
    expect(hashHeader(genesis.header)).toBe(genesis.header.hash)
    let withUncle: ChainBlock | undefined
    for (let n = 2n; n < 200n && !withUncle; n++) {
      const block = chain.blockByNumber(n) as ChainBlock
      if (block.uncles.length > 0) withUncle = block
    }
    expect(withUncle).toBeDefined()
    const uncle = withUncle?.uncles[0]
    expect(uncle?.number).toBeLessThan(withUncle?.header.number as bigint)
    expect(withUncle?.uncleSizes?.[0]).toBeGreaterThan(500)
  })

  test('behavior: a chain is a function of its seed', async () => {
    const a = await createSyntheticChain({ seed: 5, blocks: 3000, chainId: 1n })
    const b = await createSyntheticChain({ seed: 5, blocks: 3000, chainId: 1n })
    const c = await createSyntheticChain({ seed: 6, blocks: 3000, chainId: 1n })
    const hashOf = (chain: typeof a, n: bigint) => chain.blockByNumber(n)?.header.hash
    expect(hashOf(a, 2999n)).toBe(hashOf(b, 2999n))
    expect(hashOf(a, 2999n)).not.toBe(hashOf(c, 2999n))
    expect(a.blockByNumber(2500n)?.transactionHashes).toEqual(b.blockByNumber(2500n)?.transactionHashes)
  })

  test('behavior: blocks are found by hash (any case), unknown hashes are not', async () => {
    const chain = await createSyntheticChain({ seed: 2, blocks: 5000, chainId: 1n, cacheSegments: 1 })
    for (const n of [0n, 1n, 1023n, 1024n, 2047n, 4999n, 3333n]) {
      const hash = chain.blockByNumber(n)?.header.hash as Hex
      expect(chain.blockByHash(hash)?.header.number).toBe(n)
      expect(chain.blockByHash(hash.toUpperCase().replace('0X', '0x') as Hex)?.header.number).toBe(n)
    }
    const uncleHash = (chain.blockByNumber(16n) as ChainBlock).uncles[0]?.hash
    if (uncleHash) expect(chain.blockByHash(uncleHash)).toBeUndefined()
    expect(chain.blockByHash(`0x${'ab'.repeat(32)}`)).toBeUndefined()
    expect(chain.blockByNumber(5000n)).toBeUndefined()
    expect(chain.blockByNumber(-1n)).toBeUndefined()
  })

  test('behavior: append and reorg keep the chain valid and replaced blocks answerable by hash', async () => {
    // 2,047 blocks: the reorg below crosses the segment boundary at 2,048.
    const chain = await createSyntheticChain({ seed: 3, blocks: 2047, chainId: 1n, cacheSegments: 1 })
    chain.append()
    chain.append()
    expect(chain.head()).toBe(2048n)
    const replaced = [2046n, 2047n, 2048n].map((n) => chain.blockByNumber(n) as ChainBlock)
    chain.reorg(3)
    expect(chain.head()).toBe(2049n)
    for (const old of replaced) {
      const now = chain.blockByNumber(old.header.number) as ChainBlock
      expect(now.header.hash).not.toBe(old.header.hash)
      expect(chain.blockByHash(old.header.hash)?.header.hash).toBe(old.header.hash)
      expect(chain.blockByHash(now.header.hash)?.header.number).toBe(old.header.number)
    }
    chain.append()
    // Read far away first so the segments around the head are regenerated from checkpoints.
    chain.blockByNumber(10n)
    expect(verifyChainRange(chain, 2000n, 2050n).blocks).toBe(51)
    expect(chain.blockByHash((chain.blockByNumber(2050n) as ChainBlock).header.hash)?.header.number).toBe(2050n)
    expect(chain.stats()).toMatchObject({ head: 2050, reorgs: 1, sideBlocks: 3, checkpoints: 3 })
    expect(() => chain.reorg(0)).toThrow(/cannot reorg/)
  })

  test('error: a chain needs at least one block', async () => {
    await expect(createSyntheticChain({ seed: 1, blocks: 0, chainId: 1n })).rejects.toThrow(/chain length/)
  })
})
