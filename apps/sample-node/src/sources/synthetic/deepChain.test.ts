import type { Hex } from '@uncle-rpc/chain'
import { expect, test } from 'vitest'
import { verifyChainRange } from '../../_test/verifyChain.js'
import { createSyntheticChain } from './syntheticChain.js'

// One 1M-block chain: generation streams (bounded memory), and a window deep into it verifies.
// bench/generate.ts reports the precise figures (with --expose-gc).

test('behavior: a 1M-block chain generates in bounded memory and verifies deep inside', async () => {
  const live = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
  const before = live()
  let peak = 0
  const started = performance.now()
  const chain = await createSyntheticChain({
    seed: 11,
    blocks: 1_000_000,
    londonAt: 990_000,
    chainId: 1337n,
    progressEvery: 100_000,
    onProgress: () => {
      peak = Math.max(peak, live() - before)
    },
  })
  const seconds = (performance.now() - started) / 1000
  process.stdout.write(`1M blocks: ${seconds.toFixed(1)} s, peak heap+buffers growth ${(peak / 2 ** 20).toFixed(1)} MiB\n`)
  // Holding the blocks would take > 1 GB; the index and checkpoints take ~11 MB (plus garbage).
  expect(peak).toBeLessThan(256 * 2 ** 20)
  expect(chain.head()).toBe(999_999n)

  const summary = verifyChainRange(chain, 988_500n, 991_499n)
  expect(summary.blocks).toBe(3000)
  expect(summary.uncles).toBeGreaterThan(100)
  expect(chain.blockByNumber(989_999n)?.header.baseFeePerGas).toBeUndefined()
  expect(chain.blockByNumber(990_000n)?.header.baseFeePerGas).toBe(1_000_000_000n)
  for (const n of [123_456n, 500_000n, 999_999n]) {
    const hash = chain.blockByNumber(n)?.header.hash as Hex
    expect(chain.blockByHash(hash)?.header.number).toBe(n)
  }
})
