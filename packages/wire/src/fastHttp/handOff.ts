import type { Connection, FastPathState } from './connection.js'
import { ignore } from './connection.js'
import { pushReads } from '../socketReads.js'

// The end of a connection's time on the fast path: to node:http, or closed after the client's FIN.

/** Gives the connection, with every byte already read, to node:http's own connection handling. */
export function giveToNode<Pass>(s: FastPathState<Pass>, c: Connection<Pass>): void {
  s.handedOff++
  s.open.delete(c)
  const { socket } = c
  const buffer = c.body === undefined ? c.buffer : c.kept.subarray(0, c.have)
  socket.removeListener('data', c.onData)
  socket.removeListener('end', c.onEnd)
  socket.removeListener('close', c.onClose)
  socket.removeListener('error', ignore)
  socket.removeListener('drain', c.onDrain)
  pushReads(socket)
  // Note: the request under way keeps the deadline of its first byte (node:http's would start now).
  if (c.startedAt !== 0) s.deadlines.carry(socket, c.startedAt + s.options.requestTimeoutMs)
  // Note: node:http attaches its parser, then the bytes already read are fed to it at once, before any new ones.
  socket.pause()
  for (const listener of s.nodeListeners) listener.call(s.server, socket)
  if (buffer.length > 0) socket.emit('data', buffer)
  // Note: the client's FIN came while the fast path held the connection: node:http reads it now
  // (a request cut short: its 400; else it ends its side too).
  if (c.ended) socket.emit('end')
  else socket.resume()
}

/** After the client's FIN and every answer written: close, or node:http's verdict on the request cut short. */
export function finish<Pass>(s: FastPathState<Pass>, c: Connection<Pass>): void {
  if (c.buffer.length === 0 && c.body === undefined) {
    s.open.delete(c)
    c.socket.end()
  } else giveToNode(s, c)
}
