/** Default size of the answer cache: ~14 MB of ~1.4 KB answers. */
export const defaultCacheEntries = 10_000

/**
 * A bounded cache of serialized answers (the UTF-8 bytes of `result`'s JSON), keyed by network, block
 * hash (lowercase `0x…`) or block number (a canonical quantity, `0x1b4`), and index (a canonical
 * quantity below 2^28, `0x0`, or countKey): the params' text as clients mostly send it. Any other
 * text is never a key: its get misses and its set keeps nothing. Note: bytes,
 * not text: they are copied into each response as they are, and they live outside the JavaScript
 * heap, so a full cache adds nothing to the garbage collector's marking.
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

/** The index part of a count answer's key (an uncle's is a quantity, `0x…`, so the two never meet). */
export const countKey = 'count'

// A key in 32-bit words: its text's 8 (a hash's, big-endian; a number's low word, then its high
// word, then zeros), the index's value, and the network's number (from 1) times 2 plus 1 for a
// number key, so a hash never meets a number whatever their words.
const keyWords = 10
const indexWord = 8
const networkWord = 9
// The index value of countKey; any other index is a quantity, from 0.
const countIndex = -1
const notIndex = -2
// A network word that matches no key: an entry moved to the young generation (its slot stays, so
// the probe sequences through it are unbroken).
const moved = -1

// The value of each lowercase hex digit by character code; -1 for any other character.
const digits = new Int8Array(128).fill(-1)
for (const [value, digit] of [...'0123456789abcdef'].entries()) digits[digit.charCodeAt(0)] = value

/** The value of the lowercase hex digit at `i` of `text`; negative for any other character. */
function digitAt(text: string, i: number): number {
  const c = text.charCodeAt(i)
  // Note: past ASCII, c & 127 may spell a digit; -(c >>> 7) makes the result negative.
  return (digits[c & 127] as number) | -(c >>> 7)
}

/** Whether `text` is a canonical quantity (0x0, or 0x and no leading zero) of at most `maxDigits` digits. */
function isQuantity(text: string, maxDigits: number): boolean {
  const n = text.length
  return n >= 3 && n <= maxDigits + 2 && text.charCodeAt(0) === 48 && text.charCodeAt(1) === 120 && (n === 3 || text.charCodeAt(2) !== 48)
}

/** Reads `hash`, a lowercase 32-byte hash's text, into key words 0-7; false for any other text. */
function readHash(hash: string, key: Int32Array): boolean {
  if (hash.length !== 66 || hash.charCodeAt(0) !== 48 || hash.charCodeAt(1) !== 120) return false
  let bad = 0
  for (let w = 0; w < 8; w++) {
    let word = 0
    for (let i = 2 + 8 * w, end = i + 8; i < end; i++) {
      const digit = digitAt(hash, i)
      bad |= digit
      word = (word << 4) | (digit & 15)
    }
    key[w] = word
  }
  return bad >= 0
}

/** Reads `number`, a canonical quantity below 2^64, into key words 0-7; false for any other text. */
function readNumber(number: string, key: Int32Array): boolean {
  if (!isQuantity(number, 16)) return false
  let low = 0
  let high = 0
  let bad = 0
  const n = number.length
  for (let i = 2; i < n; i++) {
    const digit = digitAt(number, i)
    bad |= digit
    // Note: the digits past the last 8 go to the high word.
    if (i < n - 8) high = (high << 4) | (digit & 15)
    else low = (low << 4) | (digit & 15)
  }
  key.fill(0, 2, 8)
  key[0] = low
  key[1] = high
  return bad >= 0
}

/** The value of `index`, countKey or a canonical quantity below 2^28; notIndex for any other text. */
function indexValue(index: string): number {
  if (index === countKey) return countIndex
  if (!isQuantity(index, 7)) return notIndex
  let value = 0
  for (let i = 2; i < index.length; i++) {
    const digit = digitAt(index, i)
    if (digit < 0) return notIndex
    value = value * 16 + digit
  }
  return value
}

/**
 * One generation: an open-addressed table (linear probing) of keys, 10 words a slot in one
 * Int32Array, and their answers. At most half its slots are ever used, so a probe ends soon at
 * an empty one (network word 0).
 */
class Generation {
  readonly keys: Int32Array
  readonly answers: (Uint8Array | undefined)[]
  readonly mask: number
  readonly shift: number
  size = 0

  /** `bits`: log2 of the slots. */
  constructor(bits: number) {
    const capacity = 2 ** bits
    this.keys = new Int32Array(capacity * keyWords)
    this.answers = new Array<Uint8Array | undefined>(capacity).fill(undefined)
    this.mask = capacity - 1
    this.shift = 32 - bits
  }

  /** The slot holding `key`, or -1 - the empty slot where it would go. */
  find(key: Int32Array): number {
    const { keys, mask } = this
    // Note: Fibonacci hashing of the first words (a hash's, or a number's), the index and the network.
    let slot = Math.imul((key[0] as number) ^ (key[1] as number) ^ Math.imul(key[indexWord] as number, 31) ^ (key[networkWord] as number), 0x9e3779b1) >>> this.shift
    for (;;) {
      const at = slot * keyWords
      const network = keys[at + networkWord] as number
      if (network === 0) return -1 - slot
      let w = 0
      while (w < keyWords && keys[at + w] === key[w]) w++
      if (w === keyWords) return slot
      slot = (slot + 1) & mask
    }
  }

  add(slot: number, key: Int32Array, json: Uint8Array): void {
    this.keys.set(key, slot * keyWords)
    this.answers[slot] = json
    this.size++
  }

  /** Takes the entry in `slot` out; its slot stays taken (the probes through it go on past it). */
  remove(slot: number): void {
    this.keys[slot * keyWords + networkWord] = moved
    this.answers[slot] = undefined
    this.size--
  }

  clear(): void {
    this.keys.fill(0)
    this.answers.fill(undefined)
    this.size = 0
  }
}

/**
 * A bounded, approximately least-recently-used cache in two generations (the scheme of quick-lru):
 * entries go into the young generation; once it holds half of `maxEntries`, the next insertion
 * makes it the old one and empties the previous old one for the young; a hit in the old
 * generation moves the entry back to the young one. So an entry read or written within the last
 * `maxEntries / 2` insertions is kept, and at most `maxEntries` are held.
 * Each generation is a table of typed-array words (Generation): a lookup reads the hash's text
 * once and then one slot's 40 bytes. Note: Maps of entry objects with the hash's text cost
 * several dependent memory reads per lookup (the map's table, the entry, the key string, the
 * text it was sliced from), each a cache miss under load, and a comparison of two sliced strings
 * in V8's runtime: 12% of a cached WebSocket answer's server time in a profile.
 * Only answers that can never change belong here (see methods/).
 */
export function createAnswerCache({ maxEntries }: CreateAnswerCacheParameters): AnswerCache {
  if (maxEntries <= 0) return { get: () => undefined, set: () => {}, size: 0, enabled: false, clear: () => {} }
  const half = Math.max(1, Math.floor(maxEntries / 2))
  // Note: at least twice the slots of a generation's entries, so probes stay short.
  const bits = Math.ceil(Math.log2(2 * half))
  let young = new Generation(bits)
  let old = new Generation(bits)
  // Each network's number, from 1 (a network word of 0 marks an empty slot).
  const networks = new Map<string, number>()
  // The key being looked up (reused: a lookup makes no garbage).
  const key = new Int32Array(keyWords)

  /** Reads the key of the arguments into `key`; false when they are not a key (see AnswerCache). */
  function keyOf(network: string, text: string, index: string, add: boolean): boolean {
    const value = indexValue(index)
    if (value === notIndex) return false
    const isHash = text.length === 66
    if (!(isHash ? readHash(text, key) : readNumber(text, key))) return false
    let number = networks.get(network)
    if (number === undefined) {
      if (!add) return false
      number = networks.size + 1
      networks.set(network, number)
    }
    key[indexWord] = value
    key[networkWord] = number * 2 + (isHash ? 0 : 1)
    return true
  }

  function put(json: Uint8Array): void {
    if (young.size >= half) {
      const previous = old
      old = young
      young = previous
      young.clear()
      if (maxEntries === 1) old.clear()
    }
    young.add(-1 - young.find(key), key, json)
  }

  return {
    get(network, hash, index) {
      if (!keyOf(network, hash, index, false)) return undefined
      const slot = young.find(key)
      if (slot >= 0) return young.answers[slot]
      const agedSlot = old.find(key)
      if (agedSlot < 0) return undefined
      const aged = old.answers[agedSlot] as Uint8Array
      old.remove(agedSlot)
      put(aged)
      return aged
    },
    set(network, hash, index, json) {
      if (!keyOf(network, hash, index, true)) return
      const slot = young.find(key)
      if (slot >= 0) {
        young.answers[slot] = json
        return
      }
      const agedSlot = old.find(key)
      if (agedSlot >= 0) old.remove(agedSlot)
      put(json)
    },
    get size() {
      return young.size + old.size
    },
    enabled: true,
    clear() {
      young.clear()
      old.clear()
    },
  }
}
