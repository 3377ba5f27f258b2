// Small, fast, seedable randomness: everything the sample node makes up (blocks, reorgs,
// faults) comes from here, so a run is reproducible from its seed.

/** A deterministic pseudo-random stream (sfc32). */
export type Rng = {
  /** Next unsigned 32-bit integer. */
  u32(): number
  /** Uniform float in [0, 1). */
  float(): number
  /** Uniform integer in [0, bound) for 0 < bound ≤ 2^32. */
  int(bound: number): number
  /** Fills `out[offset, offset + length)` with random bytes. */
  fill(out: Uint8Array, offset?: number, length?: number): void
}

function fmix32(input: number): number {
  let h = input
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** Mixes any number of non-negative integers (each < 2^53) into one 32-bit value. */
function mixSeeds(...values: readonly number[]): number {
  let h = 0x9e3779b9
  for (const value of values) {
    const low = value >>> 0
    const high = Math.floor(value / 0x1_0000_0000) >>> 0
    h = fmix32(Math.imul(h ^ low, 0x01000193) + 0x7f4a7c15)
    h = fmix32(Math.imul(h ^ high, 0x01000193) + 0x632be5ab)
  }
  return h
}

/** A stream determined by the given integers (e.g. seed, block number, branch, purpose). */
export function createRng(...seeds: readonly number[]): Rng {
  const base = mixSeeds(...seeds)
  let a = base
  let b = fmix32(base ^ 0xdeadbeef)
  let c = fmix32(base + 0x6a09e667)
  let d = 1
  const u32 = (): number => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return t >>> 0
  }
  for (let i = 0; i < 12; i++) u32()
  return {
    u32,
    float: () => u32() / 0x1_0000_0000,
    int: (bound) => Math.floor((u32() / 0x1_0000_0000) * bound),
    fill(out, offset = 0, length = out.length - offset) {
      const end = offset + length
      let i = offset
      for (; i + 4 <= end; i += 4) {
        const v = u32()
        out[i] = v & 0xff
        out[i + 1] = (v >>> 8) & 0xff
        out[i + 2] = (v >>> 16) & 0xff
        out[i + 3] = v >>> 24
      }
      if (i < end) {
        let v = u32()
        for (; i < end; i++, v >>>= 8) out[i] = v & 0xff
      }
    },
  }
}
