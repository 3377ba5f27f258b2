import { type EpochRoots, epochSize, loadEpochRoots, publishedEpochRoots } from '@uncle-rpc/chain'
import type { Logger, NetworkConfig } from '@uncle-rpc/config'
import { createEra1Store, type Era1Store } from './store.js'
import { createVerifyPool, type VerifyPool } from './verifyPool.js'

/** An era1 file's blocks: its epoch, its name and the heights it holds (what planning reads). */
export type EpochCoverage = { epoch: number; file: string; from: bigint; to: bigint }

/** A network's era1 files: where they are, the roots they must match, and who verifies them. */
export type Era1Files = {
  store: Era1Store
  roots: EpochRoots | undefined
  verifier: VerifyPool
  /** The blocks each file holds (listing cached for `listTtlMs`). */
  coverage(): Promise<EpochCoverage[]>
  close(): Promise<void>
}

export type Era1FilesOptions = { keepEra1: boolean; verifyThreads: number; listTtlMs?: number }

/**
 * Opens a network's era1 files (a directory or a mirror). Without published roots (no
 * `era1Roots`, and no built-in set for the chain) it says loudly that files are only checked
 * against themselves.
 */
export function openEra1Files(
  config: NetworkConfig & { era1: string },
  options: Era1FilesOptions,
  logger: Logger,
): Era1Files {
  // Note: mainnet's published roots ship with packages/chain; other chains bring a file.
  const roots = config.era1Roots !== undefined ? loadEpochRoots(config.era1Roots) : publishedEpochRoots(BigInt(config.chainId))
  const store = createEra1Store(config.era1, {
    network: config.name,
    keep: options.keepEra1,
    roots,
    // Note: without a toBlock, as far as published roots go (the mirror's own listing otherwise: first epoch only).
    epochs: {
      from: Math.floor(config.fromBlock / epochSize),
      to: config.toBlock !== undefined ? Math.floor(config.toBlock / epochSize) : Math.max(0, (roots?.roots.length ?? 1) - 1),
    },
    logger,
  })
  if (roots === undefined)
    logger.warn({
      msg: 'NO PUBLISHED EPOCH ROOTS for this chain: era1 files are checked only against themselves (hashes, links, total difficulty, their own accumulator record). A consistent forgery would pass. Give "era1Roots" in the config to check each epoch against its published root.',
      chain_id: config.chainId,
      era1: store.description,
    })
  else logger.info({ msg: 'era1 source', era1: store.description, published_roots: roots.roots.length, roots_from: roots.source })
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
