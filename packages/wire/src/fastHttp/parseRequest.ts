// The strict HTTP/1.1 subset the fast path answers itself: a JSON-RPC POST with one
// Content-Length and nothing else to interpret. Any request outside the subset (another method or
// path, chunked bodies, upgrades, Expect, obs-fold, bare CR or LF, duplicate or odd headers,
// oversized heads) is handed to node:http with the bytes already read, so for those clients
// nothing changes; node:http (llhttp) also answers every malformed request, so the fast path
// never answers 400 itself. Pure: bytes in, a verdict out.

/** What the fast path needs of a request it answers; the body is `bytes[bodyStart, end)`. */
export type FastRequest = {
  /** The path's network segment (`/<network>/v3/<key>`), else undefined (the Host decides). */
  network: string | undefined
  key: string
  host: string
  contentType: string | undefined
  origin: string | undefined
  userAgent: string | undefined
  authorization: string | undefined
  enableFailover: string | undefined
  /** False when the client sent `Connection: close`. */
  keepAlive: boolean
  /** Where the Content-Length value's digits are in the head (headMemo.ts reads the next head against this one). */
  lengthStart: number
  lengthEnd: number
  bodyStart: number
  end: number
}

/** The head is not all there yet, and what is there may still be a fast request. */
export const incomplete = 'incomplete'
/** Not for the fast path: node:http takes the connection from here, with every byte read. */
export const handOff = 'handOff'

export type ParseLimits = {
  /** The head (request line and headers) must end within this many bytes. */
  maxHeadBytes: number
  /** Most header lines. */
  maxHeaders: number
  /** Largest Content-Length answered here; a larger body is node:http's (it answers 413). */
  maxBodyBytes: number
}

const prefix = Buffer.from('POST /', 'latin1')
const headEnd = Buffer.from('\r\n\r\n', 'latin1')
// Note: one segment of a key or a network name: no '%' (no decoding), '?', '#' or '/'.
const pathPattern = /^POST \/(?:([A-Za-z0-9._~-]{1,64})\/)?v3\/([A-Za-z0-9_-]{1,128}) HTTP\/1\.1$/
const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
// Note: tab and printable ASCII only (no obs-text, NUL or other controls); CR and LF are checked as line ends.
const headChars = /^[\t\x20-\x7e\r\n]*$/
// Note: the values llhttp itself parses are taken only in their plainest form (leading spaces, no
// trailing whitespace): it refuses some forms other headers may have (a tab after a Content-Length).
const plainLength = /^ *([0-9]{1,15})$/
const plainConnection = /^ *(keep-alive|close)$/i

/** Occurrences of the character `char` in `text`. */
function countOf(text: string, char: string): number {
  let n = 0
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) n++
  return n
}

/** A header value without the spaces and tabs around it. */
function trim(raw: string): string {
  let start = 0
  let end = raw.length
  while (start < end && (raw.charCodeAt(start) === 32 || raw.charCodeAt(start) === 9)) start++
  while (end > start && (raw.charCodeAt(end - 1) === 32 || raw.charCodeAt(end - 1) === 9)) end--
  return start === 0 && end === raw.length ? raw : raw.slice(start, end)
}

const readHeaders = ['content-length', 'host', 'content-type', 'origin', 'user-agent', 'authorization', 'enable-failover', 'connection', 'transfer-encoding', 'upgrade', 'expect', 'http2-settings'] as const
type ReadHeader = (typeof readHeaders)[number]
const byLength = new Map<number, ReadHeader[]>()
for (const name of readHeaders) byLength.set(name.length, [...(byLength.get(name.length) ?? []), name])

/** The header among those this parser reads or refuses that `name` is (any case), else undefined. */
function wantedHeader(name: string): ReadHeader | undefined {
  const candidates = byLength.get(name.length)
  if (candidates === undefined) return undefined
  const lower = name.toLowerCase()
  for (const candidate of candidates) if (candidate === lower) return candidate
  return undefined
}

/** Whether a head not ended yet may still be one this parser reads: no bare LF or CR, no byte outside the head's set. */
function mayBeHead(buffer: Buffer): boolean {
  const text = buffer.toString('latin1')
  if (!headChars.test(text)) return false
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) if (text.charCodeAt(at - 1) !== 13) return false
  for (let at = text.indexOf('\r'); at !== -1 && at + 1 < text.length; at = text.indexOf('\r', at + 1)) if (text.charCodeAt(at + 1) !== 10) return false
  return true
}

/**
 * Reads the request at the start of `bytes`: the request's fields once its head is complete,
 * `incomplete` while it may still become one, `handOff` as soon as it cannot.
 */
export function parseRequest(bytes: Uint8Array, limits: ParseLimits): FastRequest | typeof incomplete | typeof handOff {
  const length = bytes.length
  for (let i = 0; i < prefix.length && i < length; i++) if (bytes[i] !== prefix[i]) return handOff
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const end = buffer.indexOf(headEnd, 0)
  if (end === -1) return length >= limits.maxHeadBytes || !mayBeHead(buffer) ? handOff : incomplete
  if (end + 4 > limits.maxHeadBytes) return handOff
  const head = buffer.toString('latin1', 0, end)
  if (!headChars.test(head)) return handOff
  const lines = head.split('\r\n')
  if (lines.length - 1 > limits.maxHeaders) return handOff
  const requestLine = pathPattern.exec(lines[0] as string)
  if (requestLine === null) return handOff

  let contentLength: string | undefined
  let host: string | undefined
  let contentType: string | undefined
  let origin: string | undefined
  let userAgent: string | undefined
  let authorization: string | undefined
  let enableFailover: string | undefined
  let connection: string | undefined
  let lengthEnd = 0
  // Note: the split took every CRLF; a CR or LF left in the head is bare (obs-fold starts a line with SP or HTAB: no token).
  if (lines.length - 1 !== countOf(head, '\n') || lines.length - 1 !== countOf(head, '\r')) return handOff
  let lineStart = (lines[0] as string).length + 2
  for (let i = 1; i < lines.length; lineStart += (lines[i] as string).length + 2, i++) {
    const line = lines[i] as string
    const colon = line.indexOf(':')
    if (colon <= 0) return handOff
    const name = line.slice(0, colon)
    if (!token.test(name)) return handOff
    // Note: only the headers read here are lowercased and trimmed (by length first: most names are none of them).
    const wanted = wantedHeader(name)
    if (wanted === undefined) continue
    const raw = line.slice(colon + 1)
    switch (wanted) {
      case 'content-length': {
        const plain = plainLength.exec(raw)
        if (contentLength !== undefined || plain === null) return handOff
        contentLength = plain[1] as string
        lengthEnd = lineStart + line.length
        break
      }
      case 'host':
        if (host !== undefined) return handOff
        host = trim(raw)
        break
      case 'content-type':
        if (contentType !== undefined) return handOff
        contentType = trim(raw)
        break
      case 'origin':
        if (origin !== undefined) return handOff
        origin = trim(raw)
        break
      case 'user-agent':
        if (userAgent !== undefined) return handOff
        userAgent = trim(raw)
        break
      case 'authorization':
        if (authorization !== undefined) return handOff
        authorization = trim(raw)
        break
      case 'enable-failover':
        if (enableFailover !== undefined) return handOff
        enableFailover = trim(raw)
        break
      case 'connection': {
        const plain = plainConnection.exec(raw)
        if (connection !== undefined || plain === null) return handOff
        connection = (plain[1] as string).toLowerCase()
        break
      }
      default:
        // transfer-encoding, upgrade, expect, http2-settings
        return handOff
    }
  }
  // Note: node:http refuses an HTTP/1.1 request without Host (requireHostHeader).
  if (host === undefined || contentLength === undefined) return handOff
  const bodyLength = Number(contentLength)
  if (bodyLength > limits.maxBodyBytes) return handOff
  const bodyStart = end + 4
  return {
    network: requestLine[1],
    key: requestLine[2] as string,
    host,
    contentType,
    origin,
    userAgent,
    authorization,
    enableFailover,
    keepAlive: connection !== 'close',
    lengthStart: lengthEnd - contentLength.length,
    lengthEnd,
    bodyStart,
    end: bodyStart + bodyLength,
  }
}
