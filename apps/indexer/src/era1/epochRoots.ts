import { readFileSync } from 'node:fs'
import { BaseError, type Hex } from '@uncle-rpc/chain'

/** Published epoch accumulator roots of one chain: `roots[n]` is epoch n's. */
export type EpochRoots = { source: string; roots: readonly Hex[] }

/** The roots file cannot be used. */
export class EpochRootsError extends BaseError {
  constructor(path: string, reason: string) {
    super(`era1 roots file ${path}: ${reason}`, { name: 'EpochRootsError' })
  }
}

/**
 * Reads a roots file: one 0x-prefixed 32-byte root per line, epoch 0 first; `#` lines and blank
 * lines are ignored (the format of `premerge-epoch-roots.txt`).
 */
export function loadEpochRoots(path: string): EpochRoots {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new EpochRootsError(path, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(error))
  }
  const roots: Hex[] = []
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    if (!/^0x[0-9a-fA-F]{64}$/.test(line)) throw new EpochRootsError(path, `line ${i + 1} is not a 0x-prefixed 32-byte root`)
    roots.push(line.toLowerCase() as Hex)
  }
  if (roots.length === 0) throw new EpochRootsError(path, 'no roots in it')
  return { source: path, roots }
}
