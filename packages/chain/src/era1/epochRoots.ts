import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { BaseError } from '@uncle-rpc/errors'
import type { Hex } from '../header.js'

// Published epoch accumulator roots: what an era1 file's computed root must equal, so that a
// file that is only consistent with itself (a forgery, another chain) is refused. Mainnet's
// 1,897 pre-merge roots ship in packages/chain/data; other chains give a file of the same format.

/** The roots of one chain's epochs: `roots[n]` is epoch n's, `source` says where they came from. */
export type EpochRoots = { source: string; roots: readonly Hex[] }

/** A roots file that cannot be read or is not one 0x-prefixed 32-byte root per line. */
export class Era1RootsFileError extends BaseError {
  readonly source: string
  constructor({ source, reason, cause }: { source: string; reason: string; cause?: unknown }) {
    super(`Epoch roots file ${source}: ${reason}`, { name: 'Era1RootsFileError', cause })
    this.source = source
  }
}

const rootRe = /^0x[0-9a-f]{64}$/

/**
 * Parses a roots file: `#` lines and blank lines are comments, every other line is one root
 * (0x + 64 hex digits, any case), epoch 0 first. Throws {@link Era1RootsFileError} naming the line.
 */
export function parseEpochRoots({ text, source }: { text: string; source: string }): EpochRoots {
  const roots: Hex[] = []
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim().toLowerCase()
    if (line === '' || line.startsWith('#')) return
    if (!rootRe.test(line))
      throw new Era1RootsFileError({ source, reason: `line ${i + 1} is not a 0x-prefixed 32-byte root: ${raw.slice(0, 80)}` })
    roots.push(line as Hex)
  })
  if (roots.length === 0) throw new Era1RootsFileError({ source, reason: 'holds no roots' })
  return { source, roots }
}

/** Reads and parses a roots file (the `era1Roots` of a network). */
export function loadEpochRoots(path: string): EpochRoots {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new Era1RootsFileError({ source: path, reason: (error as Error).message, cause: error })
  }
  return parseEpochRoots({ text, source: path })
}

const mainnetRootsPath = fileURLToPath(new URL('../../data/mainnet-epoch-roots.txt', import.meta.url))
let mainnet: EpochRoots | undefined

/** Ethereum mainnet's 1,897 pre-merge epoch roots, shipped with the package (read once). */
export function mainnetEpochRoots(): EpochRoots {
  mainnet ??= { ...loadEpochRoots(mainnetRootsPath), source: 'mainnet pre-merge roots shipped in packages/chain/data' }
  return mainnet
}

/**
 * The roots shipped for a network, by era1 network name (`mainnet`) or chain id (1n);
 * undefined for every other chain (give a roots file, or only self-consistency is checked).
 */
export function publishedEpochRoots(network: string | bigint): EpochRoots | undefined {
  return network === 'mainnet' || network === 1n ? mainnetEpochRoots() : undefined
}
