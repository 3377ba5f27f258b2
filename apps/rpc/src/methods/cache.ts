/** Default size of the answer cache: ~14 MB of ~1.4 KB answers. */
export const defaultCacheEntries = 10_000

/**
 * A bounded cache of serialized answers (the UTF-8 bytes of `result`'s JSON), keyed by network, block
 * hash and index. Note: bytes, not text: they are copied into each response as they are, and they
 * live outside the JavaScript heap, so a full cache adds nothing to the garbage collector's marking.
 */
export type AnswerCache = {
  get(key: string): Uint8Array | undefined
  set(key: string, json: Uint8Array): void
  readonly size: number
  clear(): void
}

export type CreateAnswerCacheParameters = {
  /** Most entries kept; 0 disables the cache (every get misses, set does nothing). */
  maxEntries: number
}

/**
 * The cache key of an answer: `network/blockHash/index`, the hash lowercase and the index a
 * canonical quantity (`0x0`), i.e. the params' text as clients mostly send it.
 */
export function answerKey(network: string, blockHash: string, index: string): string {
  return network + '/' + blockHash + '/' + index
}

/**
 * A bounded, approximately least-recently-used cache in two generations (the scheme of quick-lru):
 * entries go into the young map; once it holds half of `maxEntries`, the next insertion makes it
 * the old map and drops the previous old one; a hit in the old map moves the entry back to the young one.
 * So an entry read or written within the last `maxEntries / 2` insertions is kept, at most
 * `maxEntries` are held, and a hit costs one Map lookup (lru-cache's get, with its list
 * bookkeeping, was 10% of a cached WebSocket answer's server time in a profile).
 * Only answers that can never change belong here (see methods/).
 */
export function createAnswerCache({ maxEntries }: CreateAnswerCacheParameters): AnswerCache {
  if (maxEntries <= 0) return { get: () => undefined, set: () => {}, size: 0, clear: () => {} }
  const half = Math.max(1, Math.floor(maxEntries / 2))
  let young = new Map<string, Uint8Array>()
  let old = new Map<string, Uint8Array>()
  const put = (key: string, json: Uint8Array) => {
    if (young.size >= half) {
      old = maxEntries === 1 ? new Map() : young
      young = new Map()
    }
    young.set(key, json)
  }
  return {
    get(key) {
      const hit = young.get(key)
      if (hit !== undefined) return hit
      const aged = old.get(key)
      if (aged !== undefined) {
        old.delete(key)
        put(key, aged)
      }
      return aged
    },
    set(key, json) {
      if (young.has(key)) young.set(key, json)
      else {
        old.delete(key)
        put(key, json)
      }
    },
    get size() {
      return young.size + old.size
    },
    clear() {
      young = new Map()
      old = new Map()
    },
  }
}
