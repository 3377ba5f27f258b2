import { afterEach, describe, expect, test, vi } from 'vitest'
import { type LiveChainEvent, liveTick, startLiveChain } from './liveChain.js'
import { createSyntheticChain } from './synthetic/syntheticChain.js'

describe('liveTick', () => {
  test('default: no reorgs without a rate', () => {
    for (let tick = 0; tick < 100; tick++) expect(liveTick({ seed: 1, reorgRate: 0, reorgDepth: 3, head: 100n }, tick)).toBe(0)
  })
  test('args: reorgs at about the rate, 1…depth deep, never below block 1', () => {
    const depths = Array.from({ length: 5000 }, (_, tick) =>
      liveTick({ seed: 2, reorgRate: 0.25, reorgDepth: 4, head: 100n }, tick),
    )
    const reorgs = depths.filter((d) => d > 0)
    expect(reorgs.length / depths.length).toBeGreaterThan(0.22)
    expect(reorgs.length / depths.length).toBeLessThan(0.28)
    expect(new Set(reorgs)).toEqual(new Set([1, 2, 3, 4]))
    expect(liveTick({ seed: 2, reorgRate: 1, reorgDepth: 4, head: 1n }, 0)).toBe(1)
  })
})

describe('startLiveChain', () => {
  afterEach(() => {
    vi.useRealTimers()
  })
  test('behavior: one block per interval; the same seed replays the same chain', async () => {
    const run = async () => {
      vi.useFakeTimers()
      const chain = await createSyntheticChain({ seed: 8, blocks: 300, chainId: 1n })
      const events: LiveChainEvent[] = []
      const live = startLiveChain({
        chain,
        blockTimeMs: 100,
        reorgRate: 0.5,
        reorgDepth: 3,
        seed: 8,
        onBlock: (e) => events.push(e),
      })
      vi.advanceTimersByTime(2000)
      live.stop()
      vi.advanceTimersByTime(1000)
      vi.useRealTimers()
      return { events, head: chain.blockByNumber(chain.head())?.header.hash, stats: chain.stats() }
    }
    const a = await run()
    expect(a.events.length).toBe(20)
    expect(a.events.at(-1)?.head).toBe(319n)
    expect(a.stats.reorgs).toBeGreaterThan(3)
    expect(a.stats.sideBlocks).toBeGreaterThan(3)
    expect(await run()).toEqual(a)
  })

  test('args: stopAfter ends production after that many blocks and reports the head', async () => {
    vi.useFakeTimers()
    const chain = await createSyntheticChain({ seed: 9, blocks: 100, chainId: 1n })
    const stops: bigint[] = []
    const live = startLiveChain({ chain, blockTimeMs: 100, reorgRate: 0.3, seed: 9, stopAfter: 5, onStop: (h) => stops.push(h) })
    vi.advanceTimersByTime(2000)
    live.stop()
    expect(chain.head()).toBe(104n)
    expect(stops).toEqual([104n])
  })
})
