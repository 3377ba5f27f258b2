import type { FastRequest, ParseLimits } from './parseRequest.js'

// A keep-alive client sends the same head with every request but for the Content-Length value
// (curl, viem's fetch, wrk, load balancers). The fast path keeps each connection's last parsed
// head and reads the next request against it: the same bytes around 1 to 15 digits are the same
// request fields, as parseRequest would read them, at the cost of two byte comparisons instead
// of a parse. Anything else is parsed. Pure: bytes in, fields or undefined out.

/** A parsed head cut around its Content-Length digits. */
export type HeadMemo = { before: Buffer; after: Buffer; request: FastRequest }

/** Keeps `request`'s head (read from the start of `bytes`) for the next request on its connection. */
export function rememberHead(bytes: Buffer, request: FastRequest): HeadMemo {
  return { before: ownCopy(bytes, 0, request.lengthStart), after: ownCopy(bytes, request.lengthEnd, request.bodyStart), request }
}

/** bytes[start, end) in memory of their own. Note: a copy from Buffer's shared 8 KB pool would keep the whole slab alive as long as the connection. */
function ownCopy(bytes: Buffer, start: number, end: number): Buffer {
  const copy = Buffer.allocUnsafeSlow(end - start)
  bytes.copy(copy, 0, start, end)
  return copy
}

/**
 * The request at the start of `bytes` when its head is the memo's with another Content-Length
 * (1 to 15 digits, within the limits); undefined otherwise, and the head must then be parsed.
 * Note: parseRequest's verdict depends on the digits only through the body's length and the
 * head's, so both limits are checked again here.
 */
export function repeatedHead(memo: HeadMemo, bytes: Buffer, limits: ParseLimits): FastRequest | undefined {
  const { before, after } = memo
  const n = before.length
  if (bytes.length < n + 1 + after.length || bytes.compare(before, 0, n, 0, n) !== 0) return undefined
  let at = n
  let length = 0
  for (; at < bytes.length && at - n <= 15; at++) {
    const c = bytes[at] as number
    if (c < 48 || c > 57) break
    length = length * 10 + (c - 48)
  }
  const digits = at - n
  if (digits === 0 || digits > 15) return undefined
  const bodyStart = at + after.length
  if (bytes.length < bodyStart || bytes.compare(after, 0, after.length, at, bodyStart) !== 0) return undefined
  if (bodyStart > limits.maxHeadBytes || length > limits.maxBodyBytes) return undefined
  return { ...memo.request, lengthStart: n, lengthEnd: at, bodyStart, end: bodyStart + length }
}
