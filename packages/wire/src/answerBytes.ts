// Answers as bytes are cut from slabs of 64 KB of their own instead of Buffer's shared 8 KB pool:
// a cached uncle's answer (1.4 KB) and the HTTP response around it used up a pool slab every few
// requests, and making the next one (an ArrayBuffer) was 8% of a cached answer's time in a
// profile. A slab lives while any answer cut from it does, i.e. until that answer is written: a
// client that does not read holds at most the slab of its last answer, as it held a pool slab before.

const slabSize = 64 * 1024
let slab = Buffer.allocUnsafeSlow(slabSize)
let used = 0

/** `length` bytes, uninitialized, for an answer about to be written. */
export function answerBytes(length: number): Buffer {
  if (length > slabSize >>> 3) return Buffer.allocUnsafeSlow(length)
  if (used + length > slabSize) {
    slab = Buffer.allocUnsafeSlow(slabSize)
    used = 0
  }
  const bytes = slab.subarray(used, used + length)
  // Note: 8-byte aligned, as Buffer's pool aligns its slices.
  used = (used + length + 7) & ~7
  return bytes
}
