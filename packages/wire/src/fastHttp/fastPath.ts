import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { carryDeadlines } from './carryDeadlines.js'
import { type Connection, empty, type FastPathState, ignore } from './connection.js'
import type { FastPathDeps, FastPathOptions } from './fastPathDeps.js'
import { finish } from './handOff.js'
import { received } from './readRequests.js'
import { readShared } from '../socketReads.js'
import { timedOut, written } from './responseBytes.js'
import { budgetSwept, connectionArrived, endTurn } from './turnBudget.js'

// The HTTP fast path beneath the Express app, on the same port: it takes each new connection
// before node:http does, answers the JSON-RPC POSTs it can read strictly (parseRequest.ts) with
// no IncomingMessage, ServerResponse or header objects, and hands the connection with every byte
// already read to node:http at the first request it does not read (another path or method,
// a WebSocket upgrade, a chunked or oversized body, anything malformed). From then on the
// connection is node:http's, so those clients see no difference. Answers go out in request order
// (pipelining); a handoff waits until the answers before it are written.
// The loop's concerns each have a file: reading requests (readRequests.ts, refuse.ts), the
// per-turn budget (turnBudget.ts), ordered answers (answers.ts) and their bytes
// (responseBytes.ts), the handoff (handOff.ts); each takes the server's state and the
// connection's (connection.ts).

/** Requests answered per event-loop turn by default (bench:overload, 2,000 connections: p99 5.3-9.1 s unbounded, 0.6-0.8 s at 8). */
export const defaultRequestsPerTurn = 8

export type FastPath = {
  /** Connections the fast path holds now (not yet handed off). */
  readonly connections: number
  /** Requests it has answered, and connections it handed to node:http (since start). */
  readonly answered: number
  readonly handedOff: number
  /** Closes the connections with nothing in flight; the others close after their answers. */
  closeIdleConnections(): void
  /** Cuts every connection the fast path holds. */
  closeAllConnections(): void
  /** Stops the timeout sweep. */
  stop(): void
}

/**
 * Puts the fast path in front of `server`'s own connection handling (node:http's 'connection'
 * listener, which it calls on handoff). Call before `server.listen`.
 */
export function attachFastPath<Pass>(server: Server, deps: FastPathDeps<Pass>, options: FastPathOptions): FastPath {
  const nodeListeners = server.listeners('connection') as ((socket: Socket) => void)[]
  server.removeAllListeners('connection')
  const bound = options.requestsPerTurn > 0 ? options.requestsPerTurn : Number.POSITIVE_INFINITY
  const s: FastPathState<Pass> = {
    server,
    deps,
    options,
    nodeListeners,
    deadlines: carryDeadlines(server, timedOut),
    open: new Set<Connection<Pass>>(),
    answered: 0,
    handedOff: 0,
    clock: Date.now(),
    waiting: [],
    spent: 0,
    turnEnds: false,
    endTurn: () => endTurn(s),
    bound,
    // Note: a double from the start (then the bound, below): the sweep's switches between the
    // bound and Infinity then never change the field's representation, which deoptimizes the loop.
    budget: Number.POSITIVE_INFINITY,
    arrived: false,
  }
  s.budget = bound
  server.on('connection', (socket: Socket) => accept(s, socket))
  // Note: one sweep a second for every connection instead of a timer per request.
  const sweep = setInterval(() => {
    budgetSwept(s)
    closeExpired(s, Date.now())
  }, 1000)
  sweep.unref()

  const { open } = s
  return {
    get connections() {
      return open.size
    },
    get answered() {
      return s.answered
    },
    get handedOff() {
      return s.handedOff
    },
    closeIdleConnections() {
      for (const c of open)
        if (c.slots.length === 0 && c.buffer.length === 0 && c.body === undefined) {
          open.delete(c)
          c.socket.destroy()
        }
    },
    closeAllConnections() {
      for (const c of open) c.socket.destroy()
      open.clear()
    },
    stop() {
      clearInterval(sweep)
    },
  }
}

/** A new connection: the fast path reads it from its first byte. */
function accept<Pass>(s: FastPathState<Pass>, socket: Socket): void {
  connectionArrived(s)
  const c: Connection<Pass> = {
    socket,
    buffer: empty,
    body: undefined,
    kept: empty,
    have: 0,
    checking: false,
    pass: undefined,
    ended: false,
    slots: [],
    startedAt: 0,
    idleSince: Date.now(),
    stopped: false,
    handOffPending: false,
    memo: undefined,
    onData: (chunk: Buffer) => received(s, c, chunk),
    onEnd: () => {
      c.ended = true
      if (c.stopped && !c.handOffPending) return
      c.stopped = true
      if (c.slots.length === 0 && !c.checking && !c.handOffPending) finish(s, c)
    },
    onClose: () => {
      s.open.delete(c)
      // Note: answers never written (the connection went first) give the scratch buffer back.
      for (const slot of c.slots) if (slot.bytes !== undefined) written(slot.bytes, socket)
      c.slots.length = 0
    },
    onDrain: () => {
      if (!c.handOffPending && !c.checking) socket.resume()
    },
  }
  // Note: read into the buffer every socket shares (socketReads.ts); 'data' where node does not allow it.
  if (!readShared(socket, c.onData)) socket.on('data', c.onData)
  socket.on('end', c.onEnd)
  socket.on('drain', c.onDrain)
  socket.on('close', c.onClose)
  socket.on('error', ignore)
  socket.setNoDelay(true)
  s.open.add(c)
}

/** The sweep's timeouts: a request not all arrived within requestTimeoutMs gets the 408; an idle keep-alive connection is closed. */
function closeExpired<Pass>(s: FastPathState<Pass>, now: number): void {
  const { open, options } = s
  for (const c of open) {
    if (c.startedAt !== 0 && now - c.startedAt > options.requestTimeoutMs && c.slots.length === 0) {
      open.delete(c)
      c.socket.end(timedOut)
      c.socket.destroySoon()
    } else if (c.idleSince !== 0 && c.slots.length === 0 && c.buffer.length === 0 && c.body === undefined && now - c.idleSince > options.keepAliveTimeoutMs) {
      open.delete(c)
      c.socket.destroy()
    }
  }
}
