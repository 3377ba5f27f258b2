import { isUtf8 } from 'node:buffer'
import { type Body, bodyLength, writeBody } from './lazyBody.js'

// WebSocket frames beneath ws, as the HTTP fast path is beneath node:http: after ws's handshake a
// socket's frames are read here while each is the plain kind clients send (whole, masked, no
// extension bits: a text message, a ping or a pong, within the size limit, text that is valid
// UTF-8). At the first frame of any other kind (a fragment, binary, close, an oversized or
// malformed frame, invalid UTF-8) the socket's bytes from that frame on go to ws's own reader for
// good, which answers it as it always did (1009, 1007, the close handshake…). Answers are framed
// here too: a server's text frame is a 2-, 4- or 10-byte header and the bytes, unmasked.
// No I/O: bytes in, frames out (a frame read is unmasked where it lies, as ws does; one left to ws is left as it came).

/** A frame read here: a text message (1), a ping (9) or a pong (10), unmasked. */
export type ClientFrame = { opcode: 1 | 9 | 10; payload: Buffer }

/** The frame at the offset is not all there yet. */
export const moreBytes = 'moreBytes'
/** ws reads from this frame on. */
export const wsTakes = 'wsTakes'

/**
 * Reads the frame at `at`: the frame and where it ends, `moreBytes`, or `wsTakes` for a frame
 * of any kind not read here (including every malformed one). `maxPayload`: ws's limit (bytes).
 * The frame's payload is unmasked in place and returned as a view of `bytes`.
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
  // Note: unmasked in place (as ws does), so a message costs no buffer of its own; the payload is a view of `bytes`.
  const from = maskAt + 4
  const payload = bytes.subarray(from, end)
  unmask(payload, bytes, maskAt)
  if (opcode === 1 && !isUtf8(payload)) {
    // Note: masked again, so ws reads the frame as it came.
    unmask(payload, bytes, maskAt)
    return wsTakes
  }
  return { frame: { opcode, payload }, end }
}

/** XORs `payload` with the 4-byte mask at `maskAt` of `bytes` (its own inverse). */
function unmask(payload: Buffer, bytes: Buffer, maskAt: number): void {
  const m0 = bytes[maskAt] as number
  const m1 = bytes[maskAt + 1] as number
  const m2 = bytes[maskAt + 2] as number
  const m3 = bytes[maskAt + 3] as number
  const length = payload.length
  let i = 0
  for (; i + 3 < length; i += 4) {
    payload[i] = (payload[i] as number) ^ m0
    payload[i + 1] = (payload[i + 1] as number) ^ m1
    payload[i + 2] = (payload[i + 2] as number) ^ m2
    payload[i + 3] = (payload[i + 3] as number) ^ m3
  }
  for (; i < length; i++) payload[i] = (payload[i] as number) ^ (bytes[maskAt + (i & 3)] as number)
}

/** The bytes of a server's text frame whose payload is `length` bytes. */
export function textFrameLength(length: number): number {
  return (length < 126 ? 2 : length < 65536 ? 4 : 10) + length
}

/** Writes a server's text frame holding `body` (`length` bytes of UTF-8) into `into` at `at`; returns where it ends. */
export function writeTextFrame(into: Buffer, at: number, body: Body, length: number): number {
  into[at] = 0x81
  let head = 2
  if (length < 126) into[at + 1] = length
  else if (length < 65536) {
    into[at + 1] = 126
    into.writeUInt16BE(length, at + 2)
    head = 4
  } else {
    into[at + 1] = 127
    into.writeUInt32BE(Math.floor(length / 2 ** 32), at + 2)
    into.writeUInt32BE(length >>> 0, at + 6)
    head = 10
  }
  return writeBody(into, at + head, body, length)
}

/** A server's text frame holding `body` (UTF-8). */
export function textFrame(body: Body): Buffer {
  const length = bodyLength(body)
  const frame = Buffer.allocUnsafe(textFrameLength(length))
  writeTextFrame(frame, 0, body, length)
  return frame
}
