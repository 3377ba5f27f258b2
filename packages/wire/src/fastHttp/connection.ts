import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import type { FastPathDeps, FastPathOptions } from './fastPathDeps.js'
import type { HeadMemo } from './headMemo.js'
import type { FastRequest } from './parseRequest.js'

// The fast path's state: one object per server (what its connections share) and one per
// connection, which the functions of the connection loop (fastPath.ts and the files it uses) take.

/** One answer's place in its connection's order: its bytes once made. */
export type Slot = { bytes: Buffer | undefined; close: boolean }

export type Connection<Pass> = {
  socket: Socket
  /** Bytes read and not yet a whole request (while `body` is undefined). */
  buffer: Buffer
  /** A head read whose body is still arriving: the request and its bytes so far (`kept`, `have` of them used). */
  body: FastRequest | undefined
  kept: Buffer
  have: number
  /** The head's checks are running (the socket is not read meanwhile), or passed. */
  checking: boolean
  pass: Pass | undefined
  /** The client ended its side (FIN): no request will follow. */
  ended: boolean
  /** Answers in request order; the head is written as soon as it is ready. */
  slots: Slot[]
  /** When the request now arriving began (0: none), for the 408. */
  startedAt: number
  /** When the connection last went idle (0: busy), for the keep-alive timeout. */
  idleSince: number
  /** No more requests are read (a handoff waits, or the connection closes after its answers). */
  stopped: boolean
  /** Hand the connection to node:http once the answers in flight are written. */
  handOffPending: boolean
  /** The last head parsed here (headMemo.ts). */
  memo: HeadMemo | undefined
  onData: (chunk: Buffer) => void
  onEnd: () => void
  onClose: () => void
  onDrain: () => void
}

/** A request read whose answer waits for a later turn (turnBudget.ts); its slot is taken, so answers stay in order. */
export type Queued<Pass> = { c: Connection<Pass>; request: FastRequest; body: Buffer; pass: Pass | undefined; slot: Slot }

export type FastPathState<Pass> = {
  readonly server: Server
  readonly deps: FastPathDeps<Pass>
  readonly options: FastPathOptions
  /** node:http's own 'connection' listeners, called at a handoff. */
  readonly nodeListeners: ((socket: Socket) => void)[]
  readonly deadlines: { carry: (socket: Socket, deadline: number) => void }
  /** The connections the fast path holds (not handed off, not closing). */
  readonly open: Set<Connection<Pass>>
  /** Requests answered and connections handed off, since start. */
  answered: number
  handedOff: number
  // Note: the time read once per read of a socket, turn or database answer, not per request (a clock read showed in perf).
  clock: number
  /** Requests read but not answered yet, in arrival order (turnBudget.ts). */
  readonly waiting: Queued<Pass>[]
  /** Requests answered in this turn; a check-phase callback (`endTurn`) ends the turn and answers the next ones. */
  spent: number
  turnEnds: boolean
  readonly endTurn: () => void
  /** requestsPerTurn (infinite for 0); `budget` is it while a connection arrived since the last sweep or the one before it, else infinite. */
  readonly bound: number
  budget: number
  arrived: boolean
}

export const empty = Buffer.alloc(0)

/** The sockets' 'error' listener while the fast path holds them (the close that follows is what counts). */
export const ignore = () => undefined
