import { isUtf8 } from 'node:buffer'

// WebSocket frames beneath ws, as the HTTP fast path is beneath node:http: after ws's handshake a
// socket's frames are read here while each is the plain kind clients send (whole, masked, no
// extension bits: a text message, a ping or a pong, within the size limit, text that is valid
// UTF-8). At the first frame of any other kind (a fragment, binary, close, an oversized or
// malformed frame, invalid UTF-8) the socket's bytes from that frame on go to ws's own reader for
// good, which answers it as it always did (1009, 1007, the close handshake…). Answers are framed
// here too: a server's text frame is a 2-, 4- or 10-byte header and the bytes, unmasked.
// Pure: bytes in, frames out.

/** A frame read here: a text message (1), a ping (9) or a pong (10), unmasked. */
export type ClientFrame = { opcode: 1 | 9 | 10; payload: Buffer }

/** The frame at the offset is not all there yet. */
export const moreBytes = 'moreBytes'
/** ws reads from this frame on. */
export const wsTakes = 'wsTakes'

/**
 * Reads the frame at `at`: the frame and where it ends, `moreBytes`, or `wsTakes` for a frame
 * of any kind not read here (including every malformed one). `maxPayload`: ws's limit (bytes).
 */
export function readFrame(bytes: Buffer, at: number, maxPayload: number): { frame: ClientFrame; end: number } | typeof moreBytes | typeof wsTakes {
  if (bytes.length - at < 2) return moreBytes
  const first = bytes[at] as number
  const second = bytes[at + 1] as number
  const opcode = first & 0x0f
  // FIN set, RSV1-3 clear, masked (a client's frames must be).
  if ((first & 0xf0) !== 0x80 || (second & 0x80) === 0) return wsTakes
  if (opcode !== 1 && opcode !== 9 && opcode !== 10) return wsTakes
  let length = second & 0x7f
  let maskAt = at + 2
  if (length === 126) {
    // Note: a control frame's payload is at most 125 bytes; ws refuses a longer one.
    if (opcode !== 1) return wsTakes
    if (bytes.length - at < 4) return moreBytes
    length = bytes.readUInt16BE(at + 2)
    maskAt = at + 4
  } else if (length === 127) return wsTakes
  if (length > maxPayload) return wsTakes
  const end = maskAt + 4 + length
  if (bytes.length < end) return moreBytes
  const payload = Buffer.allocUnsafe(length)
  const m0 = bytes[maskAt] as number
  const m1 = bytes[maskAt + 1] as number
  const m2 = bytes[maskAt + 2] as number
  const m3 = bytes[maskAt + 3] as number
  const from = maskAt + 4
  let i = 0
  for (; i + 3 < length; i += 4) {
    payload[i] = (bytes[from + i] as number) ^ m0
    payload[i + 1] = (bytes[from + i + 1] as number) ^ m1
    payload[i + 2] = (bytes[from + i + 2] as number) ^ m2
    payload[i + 3] = (bytes[from + i + 3] as number) ^ m3
  }
  for (; i < length; i++) payload[i] = (bytes[from + i] as number) ^ (bytes[maskAt + (i & 3)] as number)
  if (opcode === 1 && !isUtf8(payload)) return wsTakes
  return { frame: { opcode, payload }, end }
}

/** A server's text frame holding `body` (UTF-8). */
export function textFrame(body: string | Uint8Array): Buffer {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length
  const head = length < 126 ? 2 : length < 65536 ? 4 : 10
  const frame = Buffer.allocUnsafe(head + length)
  frame[0] = 0x81
  if (length < 126) frame[1] = length
  else if (length < 65536) {
    frame[1] = 126
    frame.writeUInt16BE(length, 2)
  } else {
    frame[1] = 127
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2)
    frame.writeUInt32BE(length >>> 0, 6)
  }
  if (typeof body === 'string') frame.write(body, head, 'utf8')
  else frame.set(body, head)
  return frame
}
