import type { ParsedMessage } from './types.js'

// A single call in the spelling clients' JSON.stringify gives it, read without JSON.parse:
// `{"jsonrpc":"2.0","id":…,"method":"…","params":["…","…"]}`, its four members in any order,
// each once, no whitespace; an id that is a plain integer or a string of letters, digits, `-`
// and `_`; a method name of letters, digits and `_`; two params of letters and digits (hashes,
// quantities). For such a text the result is exactly parseMessage's; any other text (a batch,
// spaces, escapes, another id or param, a member more or less) is undefined, and JSON.parse reads
// it. JSON.parse and the raw-id scan were 0.65 µs of a cached answer's request path (measured over
// 1,000 distinct calls); this reads the same call in a fraction of that.

const QUOTE = 34
const COMMA = 44
const CLOSE_BRACE = 125
const CLOSE_BRACKET = 93

/** Letters and digits (1), `-` and `_` (2), digits (4): the characters of the ids, names and params read here. */
const kinds = new Uint8Array(128)
for (let c = 48; c <= 57; c++) kinds[c] = 1 | 4
for (let c = 65; c <= 90; c++) kinds[c] = 1
for (let c = 97; c <= 122; c++) kinds[c] = 1
kinds[45] = 2
kinds[95] = 2

/** Index of the first character at or after `i` that is not of the kinds in `mask` (1: alphanumeric; 3: also `-` and `_`; 4: digits). */
function skipKinds(text: string, i: number, mask: number): number {
  // Note: past the end charCodeAt is NaN, whose `& 127` is 0, a kind of none.
  while (((kinds[text.charCodeAt(i) & 127] as number) & mask) !== 0 && text.charCodeAt(i) < 128) i++
  return i
}

// Most digits of an integer id read here: below 2^53, so its value is the one JSON.parse gives.
const maxIdDigits = 15

/** The call `text` spells, in the common spelling above; undefined for any other text. */
export function readQuickCall(text: string): ParsedMessage | undefined {
  const n = text.length
  if (n > 1024 || text.charCodeAt(0) !== 123 || text.charCodeAt(n - 1) !== CLOSE_BRACE) return undefined
  let version = false
  let rawId: string | undefined
  let id: string | number | undefined
  let method: string | undefined
  let first: string | undefined
  let second: string | undefined
  let i = 1
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined
    // Note: the member is told by its key's first letter, then its whole key (and `:` and what opens its value) is checked.
    const letter = text.charCodeAt(i + 1)
    if (letter === 106 /* j */ && text.startsWith('jsonrpc":"2.0"', i + 1)) {
      if (version) return undefined
      version = true
      i += 15
    } else if (letter === 105 /* i */ && text.startsWith('id":', i + 1)) {
      if (rawId !== undefined) return undefined
      const start = i + 5
      const c = text.charCodeAt(start)
      if (c === QUOTE) {
        i = skipKinds(text, start + 1, 3)
        if (text.charCodeAt(i) !== QUOTE) return undefined
        i++
        rawId = text.slice(start, i)
        id = text.slice(start + 1, i - 1)
      } else if (c >= 48 && c <= 57) {
        // Note: one zero alone, or no leading zero (JSON has no other integer).
        i = c === 48 ? start + 1 : skipKinds(text, start, 4)
        if (i - start > maxIdDigits) return undefined
        rawId = text.slice(start, i)
        id = Number(rawId)
        // Note: anything right after the digits but a separator (1.5, 1e3, 0x1, 01) fails the check below.
      } else return undefined
    } else if (letter === 109 /* m */ && text.startsWith('method":"', i + 1)) {
      if (method !== undefined) return undefined
      const start = i + 10
      i = skipKinds(text, start, 3)
      if (i === start || text.charCodeAt(i) !== QUOTE) return undefined
      method = text.slice(start, i)
      i++
    } else if (letter === 112 /* p */ && text.startsWith('params":["', i + 1)) {
      if (first !== undefined) return undefined
      const start = i + 11
      i = skipKinds(text, start, 1)
      if (text.charCodeAt(i) !== QUOTE || text.charCodeAt(i + 1) !== COMMA || text.charCodeAt(i + 2) !== QUOTE) return undefined
      first = text.slice(start, i)
      const next = i + 3
      i = skipKinds(text, next, 1)
      if (text.charCodeAt(i) !== QUOTE || text.charCodeAt(i + 1) !== CLOSE_BRACKET) return undefined
      second = text.slice(next, i)
      i += 2
    } else return undefined
    const c = text.charCodeAt(i)
    if (c === CLOSE_BRACE) {
      if (i !== n - 1) return undefined
      break
    }
    if (c !== COMMA) return undefined
    i++
  }
  if (!version || rawId === undefined || method === undefined || first === undefined) return undefined
  return { kind: 'single', entry: { value: { jsonrpc: '2.0', id, method, params: [first, second] }, rawId, rawParams: undefined } }
}
