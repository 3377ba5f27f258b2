import type { Hex } from '@uncle-rpc/chain'

// hash → block number without a Map of full hashes: 4-byte hash prefixes by block number
// plus the numbers grouped by the prefix's top bits (a counting sort). About 9 bytes per
// block, so a mainnet-length chain (15.5M blocks) indexes in ~140 MB. Candidates are only
// candidates: callers confirm the full hash against the block itself.

/** The first 4 bytes of a hash as an unsigned 32-bit integer. */
export function hashPrefix(hash: Uint8Array | Hex): number {
  if (typeof hash === 'string') return Number.parseInt(hash.slice(2, 10), 16) >>> 0
  return (((hash[0] as number) << 24) | ((hash[1] as number) << 16) | ((hash[2] as number) << 8) | (hash[3] as number)) >>> 0
}

/** Block numbers (offsets) whose hash may start with a given prefix. */
export type HashPrefixIndex = { candidates(prefix: number): number[] }

/** Indexes `prefixes[0, count)`; later changes to `prefixes` only make candidates fail to match. */
export function buildHashPrefixIndex(prefixes: Uint32Array, count: number): HashPrefixIndex {
  let bits = 4
  while (bits < 30 && 2 ** bits * 16 < count) bits++
  const shift = 32 - bits
  const offsets = new Uint32Array(2 ** bits + 1)
  for (let n = 0; n < count; n++) {
    const slot = ((prefixes[n] as number) >>> shift) + 1
    offsets[slot] = (offsets[slot] as number) + 1
  }
  for (let b = 1; b < offsets.length; b++) offsets[b] = (offsets[b] as number) + (offsets[b - 1] as number)
  const order = new Uint32Array(count)
  const fill = offsets.slice(0, -1)
  for (let n = 0; n < count; n++) {
    const bucket = (prefixes[n] as number) >>> shift
    order[fill[bucket] as number] = n
    fill[bucket] = (fill[bucket] as number) + 1
  }
  return {
    candidates(prefix) {
      const bucket = prefix >>> shift
      const found: number[] = []
      for (let i = offsets[bucket] as number; i < (offsets[bucket + 1] as number); i++) {
        const n = order[i] as number
        if (prefixes[n] === prefix) found.push(n)
      }
      return found
    },
  }
}
