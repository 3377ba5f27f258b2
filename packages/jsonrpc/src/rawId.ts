// A minimal scanner over JSON text that JSON.parse has already accepted, so it never validates:
// it walks the top level of each request object and cuts out raw member values, so that ids are
// echoed exactly as sent (123456789012345678901234567890, 1.0, 1e3, "\u0041" survive untouched).

/** Raw member texts of one request object. */
export type RawTokens = {
  /** The last top-level `id` member's text (JSON.parse keeps the last duplicate too). */
  id: string | undefined
  /** The last `params` member's text, kept only when it contains a backslash. */
  params: string | undefined
}

const QUOTE = 34
const BACKSLASH = 92
const COMMA = 44
const OPEN_BRACE = 123
const CLOSE_BRACE = 125
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93

function skipWhitespace(text: string, i: number): number {
  let c = text.charCodeAt(i)
  while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++i)
  return i
}

/** Index just past the string literal that opens at `i`. */
function skipString(text: string, i: number, escapes: boolean): number {
  let end = text.indexOf('"', i + 1)
  if (!escapes) return end + 1
  for (;;) {
    let k = end - 1
    while (text.charCodeAt(k) === BACKSLASH) k--
    if ((end - 1 - k) % 2 === 0) return end + 1
    end = text.indexOf('"', end + 1)
  }
}

/** Index just past the object or array that opens at `i`. */
function skipNested(text: string, i: number, escapes: boolean): number {
  let depth = 0
  for (;;) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      i = skipString(text, i, escapes)
      continue
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
      if (depth === 0) return i + 1
    }
    i++
  }
}

/** Index just past the value that starts at `i`. */
function skipValue(text: string, i: number, escapes: boolean): number {
  const c = text.charCodeAt(i)
  if (c === QUOTE) return skipString(text, i, escapes)
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return skipNested(text, i, escapes)
  // A number, true, false or null: runs up to a delimiter, whitespace or the end.
  const n = text.length
  let end = i + 1
  for (; end < n; end++) {
    const d = text.charCodeAt(end)
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 32 || d === 10 || d === 13 || d === 9) break
  }
  return end
}

const OTHER = 0
const ID = 1
const PARAMS = 2

/** Which member the key literal text[start, end) names, escapes decoded. */
function keyKind(text: string, start: number, end: number, escapes: boolean): number {
  const length = end - start
  if (length === 4) return text.charCodeAt(start + 1) === 105 && text.charCodeAt(start + 2) === 100 ? ID : OTHER
  if (length === 8) return text.startsWith('params', start + 1) ? PARAMS : OTHER
  if (escapes && length > 8) {
    const literal = text.slice(start, end)
    if (literal.includes('\\')) {
      const key = JSON.parse(literal) as string
      return key === 'id' ? ID : key === 'params' ? PARAMS : OTHER
    }
  }
  return OTHER
}

/** Scans the object that opens at `i` into `tokens`; returns the index just past it. */
function scanObject(text: string, i: number, escapes: boolean, tokens: RawTokens): number {
  i = skipWhitespace(text, i + 1)
  if (text.charCodeAt(i) === CLOSE_BRACE) return i + 1
  for (;;) {
    const keyStart = i
    i = skipString(text, i, escapes)
    const kind = keyKind(text, keyStart, i, escapes)
    i = skipWhitespace(text, skipWhitespace(text, i) + 1) // past ':'
    const valueStart = i
    i = skipValue(text, i, escapes)
    if (kind === ID) tokens.id = text.slice(valueStart, i)
    else if (kind === PARAMS) {
      const params = escapes ? text.slice(valueStart, i) : ''
      tokens.params = params.includes('\\') ? params : undefined
    }
    i = skipWhitespace(text, i)
    if (text.charCodeAt(i) === CLOSE_BRACE) return i + 1
    i = skipWhitespace(text, i + 1) // past ','
  }
}

/**
 * Raw tokens of the request(s) in `text`, which must be valid JSON: one entry for a single
 * value, one per element for a top-level array (non-objects get empty tokens).
 */
export function scanRawTokens(text: string): RawTokens[] {
  const escapes = text.includes('\\')
  let i = skipWhitespace(text, 0)
  const first = text.charCodeAt(i)
  if (first === OPEN_BRACE) {
    const tokens: RawTokens = { id: undefined, params: undefined }
    scanObject(text, i, escapes, tokens)
    return [tokens]
  }
  if (first !== OPEN_BRACKET) return [{ id: undefined, params: undefined }]
  const all: RawTokens[] = []
  i = skipWhitespace(text, i + 1)
  if (text.charCodeAt(i) === CLOSE_BRACKET) return all
  for (;;) {
    const tokens: RawTokens = { id: undefined, params: undefined }
    i = text.charCodeAt(i) === OPEN_BRACE ? scanObject(text, i, escapes, tokens) : skipValue(text, i, escapes)
    all.push(tokens)
    i = skipWhitespace(text, i)
    if (text.charCodeAt(i) === CLOSE_BRACKET) return all
    i = skipWhitespace(text, i + 1) // past ','
  }
}

/**
 * scanRawTokens' tokens for `text` holding one request object that JSON.parse read as `value`,
 * found without walking the text where that is certain: with no backslash in the text (so no
 * escapes and no quote inside a string), a string id's raw text is its value in quotes, an
 * absent id is absent, and a number's raw text follows the only `"id"` in the text (which must
 * then be the top-level key). Otherwise the scan.
 */
export function objectTokens(text: string, value: Readonly<Record<string, unknown>>): RawTokens {
  if (text.includes('\\')) return scanRawTokens(text)[0]!
  const id = value.id
  switch (typeof id) {
    case 'undefined':
      return { id: undefined, params: undefined }
    case 'string':
      return { id: '"' + id + '"', params: undefined }
    case 'boolean':
      return { id: id ? 'true' : 'false', params: undefined }
    case 'number': {
      const at = text.indexOf('"id"')
      if (at === -1 || text.indexOf('"id"', at + 4) !== -1) break
      const start = skipWhitespace(text, skipWhitespace(text, at + 4) + 1) // past ':'
      return { id: text.slice(start, skipValue(text, start, false)), params: undefined }
    }
    default:
      if (id === null) return { id: 'null', params: undefined }
  }
  return scanRawTokens(text)[0]!
}

/**
 * Parses valid JSON text with every string holding its raw source text (escapes not decoded),
 * the way geth's hexutil and common.Hash decoders see a string argument.
 */
export function parseWithRawStrings(text: string): unknown {
  let out = ''
  let copied = 0
  let start = text.indexOf('"')
  while (start !== -1) {
    const end = skipString(text, start, true)
    out += text.slice(copied, start) + JSON.stringify(text.slice(start + 1, end - 1))
    copied = end
    start = text.indexOf('"', end)
  }
  return JSON.parse(out + text.slice(copied))
}
