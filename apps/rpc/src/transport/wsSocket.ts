import type { EventEmitter } from 'node:events'
import type { Socket } from 'node:net'
import { type Body, bodyLength, type ClientFrame, moreBytes, pushReads, readFrame, readShared, textFrame, textFrameLength, writeTextFrame, wsTakes } from '@uncle-rpc/wire'
import type { WebSocket } from 'ws'

// The TCP socket beneath a ws WebSocket: its plain frames read here (wsFrames.ts of
// @uncle-rpc/wire) and the answers of one turn written at once.

/** The TCP socket of a ws WebSocket. */
export const socketOf = (ws: WebSocket) => (ws as unknown as { _socket: Socket })._socket

/**
 * Reads the socket's frames beneath ws while they are plain (wsFrames.ts): each text message goes
 * to `onMessage`; a ping or a pong goes to ws's own Receiver's handlers, so ws answers the ping
 * and bounds the pongs not yet written as it always does (past maxPendingAutoPongs, 60, it cuts
 * the socket), and then `onControl` lets the flow control count the pong's bytes. At the first
 * frame of any other kind the bytes from there on go to ws's own reader (its socket listener), for good,
 * right after `beforeWsReads`.
 * Note: ws's listener is the socket's only 'data' listener right after the handshake; if that is
 * ever not so, ws reads everything, as before.
 */
export function readPlainFrames(ws: WebSocket, maxPayload: number, onMessage: (text: string) => void, onControl: () => void, beforeWsReads: () => void): void {
  const socket = socketOf(ws)
  const receiver = (ws as unknown as { _receiver: EventEmitter })._receiver
  const listeners = socket.listeners('data') as ((chunk: Buffer) => void)[]
  if (listeners.length !== 1) return
  const wsReads = listeners[0]!
  socket.removeListener('data', wsReads)
  let pending: Buffer | undefined
  const handle = (frame: ClientFrame) => {
    if (frame.opcode === 1) return onMessage(frame.payload.toString('utf8'))
    // Note: a copy in memory of its own: the payload is a view of the bytes read, and ws's pong
    // holds it until written, so a flood of pings to a client that does not read would keep a whole
    // read per pong (a copy from Buffer's pool would keep a 64 KB slab).
    const payload = Buffer.allocUnsafeSlow(frame.payload.length)
    frame.payload.copy(payload)
    receiver.emit(frame.opcode === 9 ? 'ping' : 'pong', payload)
    onControl()
  }
  const onData = (chunk: Buffer) => {
    const bytes = pending === undefined ? chunk : Buffer.concat([pending, chunk])
    pending = undefined
    let at = 0
    while (at < bytes.length) {
      const read = readFrame(bytes, at, maxPayload)
      if (read === moreBytes) {
        pending = bytes.subarray(at)
        return
      }
      if (read === wsTakes) {
        // Note: ws may answer with a close frame at once; the answers framed before it leave first.
        beforeWsReads()
        pushReads(socket)
        socket.removeListener('data', onData)
        socket.on('data', wsReads)
        wsReads.call(socket, bytes.subarray(at))
        return
      }
      at = read.end
      handle(read.frame)
      // Note: ws cut the socket (too many pongs waiting): the rest is not read.
      if (socket.destroyed) return
    }
  }
  // Note: 'data' brings what the socket's Readable holds already (the upgrade's first bytes, which
  // ws gives back to it); the reads from now on come straight from the shared buffer (@uncle-rpc/wire's socketReads.ts).
  socket.on('data', onData)
  readShared(socket, onData)
}

// Frame batches are composed in buffers of this size, taken from and given back to a few spares:
// fresh memory per frame (Buffer's pool) made an ArrayBuffer every few answers, and the garbage
// collector's share of a cached WebSocket answer was 17% in a profile.
const batchBytes = 64 * 1024
const spares: Buffer[] = []
const maxSpares = 8

function spare(buffer: Buffer): void {
  if (spares.length < maxSpares) spares.push(buffer)
}

/** The answers of one WebSocket: `write` frames an answer, `flush` sends the frames not sent yet, `unbatch` flushes and writes each later frame at once. */
export type FrameBatch = { write: (body: Body) => void; flush: () => void; unbatch: () => void }

/**
 * The answers framed in one turn of the event loop (every message of a read answered from memory,
 * or the answers of one database statement) leave in one write of one buffer, at the end of the
 * turn's ticks, instead of a write (or a buffer of a corked writev) per frame. A frame larger
 * than a batch goes alone, after the batch before it. Call `flush` before anything else writes on
 * the socket (a refusal, a close), so nothing overtakes the answers framed before it, and
 * `unbatch` once ws reads the socket (ws may then write a close frame at any point of a read).
 */
export function createFrameBatch(ws: WebSocket): FrameBatch {
  const socket = socketOf(ws)
  let batch: Buffer | undefined
  let used = 0
  let batching = true

  function flush(): void {
    const bytes = batch
    if (bytes === undefined) return
    batch = undefined
    const frames = bytes.subarray(0, used)
    used = 0
    if (socket.destroyed) spare(bytes)
    else if (socket.writableLength > 0) {
      // Note: behind earlier writes the kernel has not taken, this one waits too: it gets bytes of its
      // own, so a client that does not read holds what it was sent, not a 64 KB buffer per turn.
      socket.write(Buffer.from(frames))
      spare(bytes)
    } else {
      socket.write(frames)
      // Note: a write the kernel did not take at once keeps the buffer; it is then not used again.
      if (socket.writableLength === 0) spare(bytes)
    }
  }

  function write(body: Body): void {
    const length = bodyLength(body)
    const size = textFrameLength(length)
    if (batch !== undefined && used + size > batch.length) flush()
    if (size > batchBytes || !batching) {
      socket.write(textFrame(body))
      return
    }
    if (batch === undefined) {
      batch = spares.pop() ?? Buffer.allocUnsafeSlow(batchBytes)
      process.nextTick(flush)
    }
    used = writeTextFrame(batch, used, body, length)
  }

  function unbatch(): void {
    flush()
    batching = false
  }

  return { write, flush, unbatch }
}
