import { complete } from './answers.js'
import { type Connection, empty, type FastPathState, type Slot } from './connection.js'
import type { FastAnswer } from './fastPathDeps.js'
import type { FastRequest } from './parseRequest.js'
import { dropShared } from '../socketReads.js'

// Note: of a refused body at most this much is read and dropped (as http.ts's 413).
const discardBytes = 64 * 1024

/**
 * The refusal of a head goes out now with `Connection: close` (then the FIN); at most
 * `discardBytes` more of the body are read and dropped (a body nearly all sent ends cleanly: no
 * reset), then the socket is no longer read and is cut min(5 s, requestTimeoutMs) after the
 * refusal. Note: with node's own reads every read is a fresh 64 KiB buffer, garbage until a GC:
 * dropping whole bodies (node:http's way) piled up ~50 MB for 40 clients sending 5 MiB each; unread
 * bytes wait in the kernel instead, and a client that reads while it sends (curl, fetch, node) has its answer long
 * before the cut.
 */
export function refuse<Pass>(s: FastPathState<Pass>, c: Connection<Pass>, refusal: FastAnswer): void {
  const { open } = s
  const request = c.body as FastRequest
  let left = request.end - c.have
  let dropped = 0
  c.body = undefined
  c.kept = empty
  c.stopped = true
  const { socket } = c
  const cut = setTimeout(() => socket.destroy(), Math.min(5000, s.options.requestTimeoutMs))
  cut.unref()
  socket.once('close', () => clearTimeout(cut))
  socket.removeListener('data', c.onData)
  socket.removeListener('drain', c.onDrain)
  const reading = () => dropped < discardBytes && !c.handOffPending && !socket.writableNeedDrain
  const onDropped = (nread: number) => {
    left -= nread
    dropped += nread
    if (left <= 0 && !open.has(c)) socket.destroySoon()
    else if (!reading()) socket.pause()
  }
  // Note: read into the shared buffer, the dropped bytes are never copied (socketReads.ts).
  if (!dropShared(socket, onDropped)) socket.on('data', (chunk: Buffer) => onDropped(chunk.length))
  socket.on('drain', () => {
    if (reading()) socket.resume()
  })
  socket.once('end', () => {
    if (!open.has(c)) socket.destroySoon()
  })
  if (reading()) socket.resume()
  const slot: Slot = { bytes: undefined, close: true }
  c.slots.push(slot)
  s.answered++
  complete(s, c, slot, { ...refusal, close: true })
  // Note: once the refusal is written (the connection has left `open`); if earlier answers hold it back, the cut bounds it.
  if ((left <= 0 || c.ended) && !open.has(c)) socket.destroySoon()
}
