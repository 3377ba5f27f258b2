import { LRUCache } from 'lru-cache'

/** Default size of the answer cache: ~14 MB of ~1.4 KB answers. */
export const defaultCacheEntries = 10_000

/**
 * A bounded LRU of serialized answers (the UTF-8 bytes of `result`'s JSON), keyed by network, block
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

/** The cache key of an answer: `network/blockHash/index` (blockHash lowercase, as the decoders return it). */
export function answerKey(network: string, blockHash: string, index: bigint): string {
  return network + '/' + blockHash + '/' + index
}

/**
 * A bounded LRU (lru-cache, shared with the sample node): a hit makes the entry the newest, an
 * insert past `maxEntries` evicts the oldest. Only answers that can never change belong here (see methods/).
 */
export function createAnswerCache({ maxEntries }: CreateAnswerCacheParameters): AnswerCache {
  if (maxEntries <= 0) return { get: () => undefined, set: () => {}, size: 0, clear: () => {} }
  const entries = new LRUCache<string, Uint8Array>({ max: maxEntries })
  return {
    get: (key) => entries.get(key),
    set: (key, json) => void entries.set(key, json),
    get size() {
      return entries.size
    },
    clear: () => entries.clear(),
  }
}
