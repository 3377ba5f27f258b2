import type { Hex } from '@uncle-rpc/chain'
import type { Logger, NetworkConfig } from '@uncle-rpc/config'
import type { EpochCoverage } from '../planRanges.js'
import { loadEpochRoots } from './epochRoots.js'
import { createEra1Store, type Era1Store } from './store.js'
import { createVerifyPool, type VerifyPool } from './verifyPool.js'

/** A network's era1 files: where they are, the roots they must match, and who verifies them. */
export type Era1Source = {
  store: Era1Store
  roots: readonly Hex[] | undefined
  verifier: VerifyPool
  /** The blocks each file holds (listing cached for `listTtlMs`). */
  coverage(): Promise<EpochCoverage[]>
  close(): Promise<void>
}

export type Era1SourceOptions = { keepEra1: boolean; verifyThreads: 0 | 1; listTtlMs?: number }

/**
 * Opens a network's era1 source. Without published roots (no `era1Roots`, and no built-in set
 * for the chain) it says loudly that files are only checked against themselves.
 */
export function createEra1Source(
  config: NetworkConfig & { era1: string },
  options: Era1SourceOptions,
  logger: Logger,
  builtInRoots?: (chainId: number) => readonly Hex[] | undefined,
): Era1Source {
  const store = createEra1Store(config.era1, { keep: options.keepEra1 })
  const roots = config.era1Roots !== undefined ? loadEpochRoots(config.era1Roots).roots : builtInRoots?.(config.chainId)
  if (roots === undefined)
    logger.warn({
      msg: 'NO PUBLISHED EPOCH ROOTS for this chain: era1 files are checked only against themselves (hashes, links, total difficulty, their own accumulator record). A consistent forgery would pass. Give "era1Roots" in the config to check each epoch against its published root.',
      chain_id: config.chainId,
      era1: store.description,
    })
  else logger.info({ msg: 'era1 source', era1: store.description, published_roots: roots.length })
  const verifier = createVerifyPool({ threads: options.verifyThreads })
  let listed: { at: number; coverage: Promise<EpochCoverage[]> } | undefined
  return {
    store,
    roots,
    verifier,
    coverage() {
      if (!listed || Date.now() - listed.at > (options.listTtlMs ?? 60_000)) {
        const coverage = store
          .list()
          .then((refs) => refs.map((r) => ({ epoch: r.epoch, file: r.name, from: r.startNumber, to: r.startNumber + BigInt(r.count) - 1n })))
        listed = { at: Date.now(), coverage }
        coverage.catch(() => {
          listed = undefined
        })
      }
      return listed.coverage
    },
    close: () => verifier.close(),
  }
}
