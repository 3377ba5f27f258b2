/** A response's opening, up to its id (geth's field order: jsonrpc, id, then result or error). */
export const idHead = '{"jsonrpc":"2.0","id":'
/** Between a response's id and its result. */
export const resultKey = ',"result":'

const resultHead = Buffer.from(idHead)
const resultMiddle = Buffer.from(resultKey)

/**
 * resultResponse for a stored answer (a cached answer's bytes, or the database's text), kept as
 * its parts until a transport writes it (a LazyBody of the wire): the result is then copied
 * once, straight into the frame or HTTP response sent. Note: bytes, where the text form is
 * flattened and UTF-8 encoded again on every answer; parts, where composing the response first
 * copied the answer twice, the first time into fresh memory (the copies and that memory were 10%
 * of a cached WebSocket answer's server time in a profile). Text is encoded once, into the
 * response, instead of being joined into a response string that is flattened and then encoded.
 */
export class ResultBody {
  /** The response's byte count. */
  readonly length: number
  private readonly idBytes: number
  private readonly jsonBytes: number

  constructor(
    readonly rawId: string,
    readonly json: Uint8Array | string,
  ) {
    let ascii = true
    for (let i = 0; i < rawId.length; i++) if (rawId.charCodeAt(i) > 127) ascii = false
    this.idBytes = ascii ? rawId.length : Buffer.byteLength(rawId)
    this.jsonBytes = typeof json === 'string' ? Buffer.byteLength(json) : json.length
    this.length = resultHead.length + this.idBytes + resultMiddle.length + this.jsonBytes + 1
  }

  /** Writes the response into `into` from `at` (`length` bytes); returns where it ends. */
  writeInto(into: Buffer, at: number): number {
    const { rawId, json, idBytes } = this
    into.set(resultHead, at)
    at += resultHead.length
    // Note: an id is mostly a few ASCII digits: set one by one, not through Buffer's write (a call into C++).
    if (idBytes === rawId.length) for (let i = 0; i < idBytes; i++) into[at + i] = rawId.charCodeAt(i)
    else into.write(rawId, at, 'utf8')
    at += idBytes
    into.set(resultMiddle, at)
    at += resultMiddle.length
    if (typeof json === 'string') into.write(json, at, this.jsonBytes, 'utf8')
    else into.set(json, at)
    at += this.jsonBytes
    into[at] = 125 // '}'
    return at + 1
  }
}
