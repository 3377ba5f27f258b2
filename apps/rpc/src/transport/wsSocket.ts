import type { EventEmitter } from 'node:events'
import type { Socket } from 'node:net'
import { type ClientFrame, moreBytes, readFrame, wsTakes } from '@uncle-rpc/wire'
import type { WebSocket } from 'ws'

// The TCP socket beneath a ws WebSocket: its plain frames read here (wsFrames.ts of
// @uncle-rpc/wire) and the answers of one read written at once.

/** The TCP socket of a ws WebSocket. */
export const socketOf = (ws: WebSocket) => (ws as unknown as { _socket: Socket })._socket

/**
 * Reads the socket's frames beneath ws while they are plain (wsFrames.ts): each text message goes
 * to `onMessage`; a ping or a pong goes to ws's own Receiver's handlers, so ws answers the ping
 * and bounds the pongs not yet written as it always does (past maxPendingAutoPongs, 60, it cuts
 * the socket), and then `onControl` lets the flow control count the pong's bytes. At the first
 * frame of any other kind the bytes from there on go to ws's own reader (its socket listener), for good.
 * Note: ws's listener is the socket's only 'data' listener right after the handshake; if that is
 * ever not so, ws reads everything, as before.
 */
export function readPlainFrames(ws: WebSocket, maxPayload: number, onMessage: (text: string) => void, onControl: () => void): void {
  const socket = socketOf(ws)
  const receiver = (ws as unknown as { _receiver: EventEmitter })._receiver
  const listeners = socket.listeners('data') as ((chunk: Buffer) => void)[]
  if (listeners.length !== 1) return
  const wsReads = listeners[0]!
  socket.removeListener('data', wsReads)
  let pending: Buffer | undefined
  const handle = (frame: ClientFrame) => {
    if (frame.opcode === 1) return onMessage(frame.payload.toString('utf8'))
    receiver.emit(frame.opcode === 9 ? 'ping' : 'pong', frame.payload)
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
  socket.on('data', onData)
}

/**
 * The answers written while one read of the socket is handled (every message in it answered from
 * memory) leave in one write instead of one per frame: the socket is corked when its data arrives
 * and uncorked once that data has been handled (ws corks each frame too; the counts nest).
 */
export function coalesceWrites(ws: WebSocket): void {
  const socket = socketOf(ws)
  let corked = false
  const uncork = () => {
    corked = false
    socket.uncork()
  }
  socket.prependListener('data', () => {
    if (corked) return
    corked = true
    socket.cork()
    process.nextTick(uncork)
  })
}
