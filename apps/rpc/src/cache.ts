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
 * An LRU over a Map (insertion order = recency): a hit moves the entry to the end, an insert past
 * `maxEntries` evicts the oldest. Only answers that can never change belong here (see methods/).
 */
export function createAnswerCache({ maxEntries }: CreateAnswerCacheParameters): AnswerCache {
  // Invariant: entries.size <= maxEntries.
  const entries = new Map<string, string>()
  return {
    get(key) {
      const json = entries.get(key)
      if (json !== undefined) {
        entries.delete(key)
        entries.set(key, json)
      }
      return json
    },
    set(key, json) {
      if (maxEntries <= 0) return
      entries.delete(key)
      entries.set(key, json)
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string)
    },
    get size() {
      return entries.size
    },
    clear: () => entries.clear(),
  }
}
