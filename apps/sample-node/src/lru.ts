/** A small least-recently-used cache on a Map (insertion order = recency). */
export type Lru<K, V> = {
  get(key: K): V | undefined
  set(key: K, value: V): void
  delete(key: K): void
  keys(): K[]
  readonly size: number
}

/** An LRU holding at most `capacity` entries. */
export function createLru<K, V>(capacity: number): Lru<K, V> {
  const map = new Map<K, V>()
  return {
    get(key) {
      const value = map.get(key)
      if (value !== undefined) {
        map.delete(key)
        map.set(key, value)
      }
      return value
    },
    set(key, value) {
      map.delete(key)
      map.set(key, value)
      while (map.size > capacity) map.delete(map.keys().next().value as K)
    },
    delete(key) {
      map.delete(key)
    },
    keys: () => [...map.keys()],
    get size() {
      return map.size
    },
  }
}
