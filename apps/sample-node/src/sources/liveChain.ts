import { createRng } from '../rng.js'
import type { SyntheticChain } from './synthetic/syntheticChain.js'

export type LiveChainParameters = {
  chain: SyntheticChain
  /** Milliseconds between new blocks. */
  blockTimeMs: number
  /** Probability per new block that it arrives on a sibling branch replacing recent blocks. */
  reorgRate?: number | undefined
  /** Deepest reorg, in replaced blocks (default 3). */
  reorgDepth?: number | undefined
  seed: number
  /** Blocks appended per tick, announced together (a burst, as a node importing several at once). Default 1. */
  burst?: number | undefined
  /** Stop producing after this many ticks (a reorg counts as one); default never. */
  stopAfter?: number | undefined
  /** Called after each new block (for logs and tests). */
  onBlock?: ((event: LiveChainEvent) => void) | undefined
  /** Called once when production stops because of `stopAfter`, with the final head. */
  onStop?: ((head: bigint) => void) | undefined
}

export type LiveChainEvent = { head: bigint; reorgDepth: number }

/** Decides tick `tick`: 0 for a plain new block, or the depth of the reorg it brings. */
export function liveTick(
  parameters: { seed: number; reorgRate: number; reorgDepth: number; head: bigint },
  tick: number,
): number {
  const rng = createRng(parameters.seed, tick, 0x6c697665)
  if (parameters.reorgRate <= 0 || rng.float() >= parameters.reorgRate) return 0
  const maxDepth = Math.min(parameters.reorgDepth, Number(parameters.head))
  return maxDepth < 1 ? 0 : 1 + rng.int(maxDepth)
}

/**
 * Keeps producing blocks on top of a synthetic chain, like a live PoW node: every
 * `blockTimeMs` a new head (or `burst` new blocks), sometimes on a sibling branch that replaces
 * the last 1…reorgDepth blocks (replaced blocks stay answerable by hash). The sequence is a
 * function of the seed.
 */
export function startLiveChain(parameters: LiveChainParameters): { stop(): void } {
  const { chain } = parameters
  let tick = 0
  const timer = setInterval(() => {
    const depth = liveTick(
      {
        seed: parameters.seed,
        reorgRate: parameters.reorgRate ?? 0,
        reorgDepth: parameters.reorgDepth ?? 3,
        head: chain.head(),
      },
      tick++,
    )
    if (depth > 0) chain.reorg(depth)
    else for (let i = 0; i < (parameters.burst ?? 1); i++) chain.append()
    parameters.onBlock?.({ head: chain.head(), reorgDepth: depth })
    if (parameters.stopAfter !== undefined && tick >= parameters.stopAfter) {
      clearInterval(timer)
      parameters.onStop?.(chain.head())
    }
  }, parameters.blockTimeMs)
  return { stop: () => clearInterval(timer) }
}
