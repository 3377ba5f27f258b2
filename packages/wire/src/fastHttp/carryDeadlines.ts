import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

// The fast path's request deadlines, carried over to node:http when a connection is handed to it.

/**
 * A request that began on the fast path and is handed to node:http part-read keeps the deadline
 * of its first byte: node:http's own requestTimeout would start at the handoff, so a head trickled
 * for nearly the whole timeout and then handed off would get twice as long. Past the deadline,
 * with the request still not all read, the client gets `timedOut` (node:http's 408) and the
 * connection ends, or, when an answer to it has begun, the connection is cut (as node:http does).
 */
export function carryDeadlines(server: Server, timedOut: Buffer): { carry: (socket: Socket, deadline: number) => void } {
  const carried = new Map<Socket, { timer: NodeJS.Timeout; res: ServerResponse | undefined }>()

  const settle = (socket: Socket) => {
    const entry = carried.get(socket)
    if (entry === undefined) return
    clearTimeout(entry.timer)
    carried.delete(socket)
  }

  const expire = (socket: Socket) => {
    const entry = carried.get(socket)
    carried.delete(socket)
    // Note: node:http lets go of its parser (socket.parser = null) once the socket is upgraded (ws owns it then) or closed.
    if (socket.destroyed || (socket as unknown as { parser?: unknown }).parser == null) return
    if (entry?.res?.headersSent === true) return void socket.destroy()
    socket.end(timedOut)
    socket.destroySoon()
  }

  // Note: only the request under way at the handoff keeps the deadline; it ends when node:http has read it all.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    if (carried.size === 0) return
    const entry = carried.get(req.socket)
    if (entry === undefined) return
    if (req.complete) return settle(req.socket)
    entry.res = res
    req.once('end', () => settle(req.socket))
  })

  return {
    carry(socket, deadline) {
      const timer = setTimeout(() => expire(socket), Math.max(0, deadline - Date.now()))
      timer.unref()
      carried.set(socket, { timer, res: undefined })
      socket.once('close', () => settle(socket))
    },
  }
}
