import type { Hex } from '../header.js'

// Standard era1 file names (geth, reth, the public mirrors): `<network>-<epoch:05d>-<root8>.era1`,
// where root8 is the first 4 bytes of the epoch accumulator root in hex.

/** What a standard era1 file name says. */
export type Era1FileName = { network: string; epoch: number; rootPrefix: string }

const nameRe = /^([a-z0-9_]+(?:-[a-z0-9_]+)*)-(\d{5,})-([0-9a-f]{8})\.era1$/

/** Reads a standard era1 file name (a bare name or a path); undefined if it is not one. */
export function parseEra1FileName(pathOrName: string): Era1FileName | undefined {
  const name = pathOrName.slice(pathOrName.lastIndexOf('/') + 1)
  const match = nameRe.exec(name)
  if (!match) return undefined
  return { network: match[1]!, epoch: Number(match[2]), rootPrefix: match[3]! }
}

/** The standard name of a network's epoch file with the given accumulator root. */
export function era1FileName({ network, epoch, root }: { network: string; epoch: number; root: Hex }): string {
  return `${network}-${String(epoch).padStart(5, '0')}-${root.slice(2, 10).toLowerCase()}.era1`
}
