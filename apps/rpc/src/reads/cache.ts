import { hexWord } from './hashFilter.js'

/** Default size of the answer cache: ~14 MB of ~1.4 KB answers. */
export const defaultCacheEntries = 10_000

/**
 * A bounded cache of serialized answers (the UTF-8 bytes of `result`'s JSON), keyed by network, block
 * hash (lowercase `0x…`) and index (a canonical quantity, `0x0`): the params' text as clients mostly
 * send it. Note: bytes, not text: they are copied into each response as they are, and they
 * live outside the JavaScript heap, so a full cache adds nothing to the garbage collector's marking.
 */
export type AnswerCache = {
  get(network: string, blockHash: string, index: string): Uint8Array | undefined
  set(network: string, blockHash: string, index: string, json: Uint8Array): void
  readonly size: number
  /** False when the cache keeps nothing (maxEntries 0): an answer need not be made into bytes for it. */
  readonly enabled: boolean
  clear(): void
}

export type CreateAnswerCacheParameters = {
  /** Most entries kept; 0 disables the cache (every get misses, set does nothing). */
  maxEntries: number
}

// The entries of one bucket: nearly always one (one network, uncle 0, no other hash sharing the bucket).
type Entry = { hash: string; network: string; index: string; json: Uint8Array; next: Entry | undefined }

function find(entry: Entry | undefined, hash: string, network: string, index: string): Entry | undefined {
  while (entry !== undefined && (entry.hash !== hash || entry.index !== index || entry.network !== network)) entry = entry.next
  return entry
}

/**
 * The bucket of a block hash: its first seven hex digits as a small integer (block hashes are
 * uniformly distributed). Note: a Map keyed by the hash text hashed all 66 characters of a new
 * string on every lookup; entries are still compared whole, so any text is a valid key.
 */
const bucketOf = (hash: string): number => hexWord(hash, 2) >>> 4

/**
 * A bounded, approximately least-recently-used cache in two generations (the scheme of quick-lru):
 * entries go into the young map; once it holds half of `maxEntries`, the next insertion makes it
 * the old map and drops the previous old one; a hit in the old map moves the entry back to the young one.
 * So an entry read or written within the last `maxEntries / 2` insertions is kept, at most
 * `maxEntries` are held, and a hit costs one Map lookup (lru-cache's get, with its list
 * bookkeeping, was 10% of a cached WebSocket answer's server time in a profile).
 * The maps are keyed by the hash's bucket (bucketOf), with hash, network and index checked in the
 * entry: a key made by concatenation had to be flattened and hashed on every lookup (290 against
 * 140 ns per lookup over random hashes, measured with JSON.parse'd params), the hash text itself
 * hashed (314–323 against 371–444 ns for a request's text, its slice and the lookup).
 * Only answers that can never change belong here (see methods/).
 */
export function createAnswerCache({ maxEntries }: CreateAnswerCacheParameters): AnswerCache {
  if (maxEntries <= 0) return { get: () => undefined, set: () => {}, size: 0, enabled: false, clear: () => {} }
  const half = Math.max(1, Math.floor(maxEntries / 2))
  let young = new Map<number, Entry>()
  let old = new Map<number, Entry>()
  let youngSize = 0
  let oldSize = 0

  /** Takes `entry` (found in `map`'s chain for `bucket`) out of that chain. */
  const unlink = (map: Map<number, Entry>, bucket: number, entry: Entry): void => {
    let head = map.get(bucket) as Entry
    if (head === entry) {
      if (entry.next === undefined) map.delete(bucket)
      else map.set(bucket, entry.next)
      return
    }
    while (head.next !== entry) head = head.next as Entry
    head.next = entry.next
  }
  const put = (bucket: number, entry: Entry) => {
    if (youngSize >= half) {
      if (maxEntries === 1) {
        old = new Map()
        oldSize = 0
      } else {
        old = young
        oldSize = youngSize
      }
      young = new Map()
      youngSize = 0
    }
    entry.next = young.get(bucket)
    young.set(bucket, entry)
    youngSize++
  }
  return {
    get(network, hash, index) {
      const bucket = bucketOf(hash)
      const hit = find(young.get(bucket), hash, network, index)
      if (hit !== undefined) return hit.json
      const aged = find(old.get(bucket), hash, network, index)
      if (aged === undefined) return undefined
      unlink(old, bucket, aged)
      oldSize--
      put(bucket, aged)
      return aged.json
    },
    set(network, hash, index, json) {
      const bucket = bucketOf(hash)
      const present = find(young.get(bucket), hash, network, index)
      if (present !== undefined) {
        present.json = json
        return
      }
      const aged = find(old.get(bucket), hash, network, index)
      if (aged !== undefined) {
        unlink(old, bucket, aged)
        oldSize--
      }
      put(bucket, { hash, network, index, json, next: undefined })
    },
    get size() {
      return youngSize + oldSize
    },
    enabled: true,
    clear() {
      young = new Map()
      old = new Map()
      youngSize = 0
      oldSize = 0
    },
  }
}
