import { LRUCache } from 'lru-cache'

/** Default size of the answer cache: ~14 MB of ~1.4 KB answers. */
export const defaultCacheEntries = 10_000

/** A bounded LRU of serialized answers (the JSON text of `result`), keyed by network, block hash and index. */
export type AnswerCache = {
  get(key: string): string | undefined
  set(key: string, json: string): void
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
  const entries = new LRUCache<string, string>({ max: maxEntries })
  return {
    get: (key) => entries.get(key),
    set: (key, json) => void entries.set(key, json),
    get size() {
      return entries.size
    },
    clear: () => entries.clear(),
  }
}
