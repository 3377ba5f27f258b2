/**
 * A body kept as its parts until a transport writes it (a JSON-RPC response around a cached
 * answer's bytes): its byte count, and how to write it into the buffer that is sent, so its
 * parts are copied once, there.
 */
export type LazyBody = {
  readonly length: number
  /** Writes the body into `into` from `at` (`length` bytes); returns where it ends. */
  writeInto(into: Buffer, at: number): number
}

/** What the transports send: text (written as UTF-8), bytes, or a lazy body. */
export type Body = string | Uint8Array | LazyBody

/** The byte count of `body`. */
export const bodyLength = (body: Body): number => (typeof body === 'string' ? Buffer.byteLength(body) : body.length)

/** A lazy body written into bytes of its own. */
export function bodyBytes(body: LazyBody): Buffer {
  const bytes = Buffer.allocUnsafe(body.length)
  body.writeInto(bytes, 0)
  return bytes
}

/** Writes `body` (`length` bytes, bodyLength's) into `into` from `at`; returns where it ends. */
export function writeBody(into: Buffer, at: number, body: Body, length: number): number {
  if (typeof body === 'string') into.write(body, at, 'utf8')
  else if (body instanceof Uint8Array) into.set(body, at)
  else return body.writeInto(into, at)
  return at + length
}
