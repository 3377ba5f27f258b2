import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { answerBytes } from '../answerBytes.js'
import { carryDeadlines } from './carryDeadlines.js'
import { type HeadMemo, rememberHead, repeatedHead } from './headMemo.js'
import { type FastRequest, handOff, incomplete, type ParseLimits, parseRequest } from './parseRequest.js'

// The HTTP fast path beneath the Express app, on the same port: it takes each new connection
// before node:http does, answers the JSON-RPC POSTs it can read strictly (parseRequest.ts) with
// no IncomingMessage, ServerResponse or header objects, and hands the connection with every byte
// already read to node:http at the first request it does not read (another path or method,
// a WebSocket upgrade, a chunked or oversized body, anything malformed). From then on the
// connection is node:http's, so those clients see no difference. Answers go out in request order
// (pipelining); a handoff waits until the answers before it are written.

/** Requests answered per event-loop turn by default (bench:overload, 2,000 connections: p99 5.3-9.1 s unbounded, 0.6-0.8 s at 8). */
export const defaultRequestsPerTurn = 8

/** What the fast path sends: status, JSON body, and the extra headers as name/value pairs. */
export type FastAnswer = { status: number; body: string | Uint8Array; headers?: readonly string[] | undefined; close?: boolean | undefined }

/** The checks of a head whose body is still to come: a pass (given back to serve) or the refusal to send. */
export type HeadCheck<Pass> = { ok: true; pass: Pass } | { ok: false; refusal: FastAnswer }

export type FastPathDeps<Pass = unknown> = {
  /**
   * The checks before the body (network, key, restrictions…), run at the head when the body has not
   * all arrived with it, so a refused body is never kept; may throw or reject (500, close).
   */
  check: (request: FastRequest) => HeadCheck<Pass> | Promise<HeadCheck<Pass>>
  /**
   * Answers one request (its body is `body`; `pass` when its head was checked already); may throw
   * or reject: the connection then gets a 500 and closes.
   */
  serve: (request: FastRequest, body: Buffer, pass?: Pass) => FastAnswer | Promise<FastAnswer>
  /** The answer to a request whose serve() threw (a 500 with a correlation id). */
  failed: (error: unknown) => FastAnswer
  /** True once the server is closing: every answer then ends its connection. */
  closing: () => boolean
}

export type FastPathOptions = ParseLimits & {
  /** A request's head and body must arrive within this long, else 408 and close (node:http's requestTimeout). */
  requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this long (node:http's keepAliveTimeout). */
  keepAliveTimeoutMs: number
  /**
   * Requests answered at once per event-loop turn (those waiting for the database are not
   * counted) while connections are arriving (one arrived in the last 1-2 s); the rest wait, in
   * arrival order, for the next turns. Node 20 accepts one new connection per turn, so short
   * turns are what lets a burst of thousands of connections in; with none arriving the bound
   * would only cost (a turn more per few requests: 1.6 µs per request of 16). 0 = no bound.
   */
  requestsPerTurn: number
}

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

const reasons: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

// Note: node:http's own 408 (what a client of either path gets when its request is too slow).
const timedOut = Buffer.from('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n', 'latin1')
const empty = Buffer.alloc(0)

// The heads' ends after the Content-Length value, with the Date header (RFC 9110: an origin server
// with a clock sends it), made once a second as bytes.
let tailsAt = 0
let keepAliveTail = Buffer.alloc(0)
let closeTail = Buffer.alloc(0)

function headTail(keepAlive: boolean, now: number): Buffer {
  if (now - tailsAt >= 1000 || tailsAt === 0) {
    tailsAt = now - (now % 1000)
    const date = new Date(tailsAt).toUTCString()
    keepAliveTail = Buffer.from(`\r\ndate: ${date}\r\nconnection: keep-alive\r\nkeep-alive: timeout=5\r\n\r\n`, 'latin1')
    closeTail = Buffer.from(`\r\ndate: ${date}\r\nconnection: close\r\n\r\n`, 'latin1')
  }
  return keepAlive ? keepAliveTail : closeTail
}

// One response buffer used again and again while each write of it completes at once (the kernel
// took every byte: node keeps no reference then); a write left pending keeps it, and the next
// response gets a new one. Note: fresh memory for every response (Buffer's pool, or slabs) cost
// page faults; 64 KB covers every cached answer, a larger response is cut from the slabs.
let scratch = Buffer.allocUnsafeSlow(64 * 1024)
let scratchTaken = false

function responseBuffer(length: number): Buffer {
  if (scratchTaken || length > scratch.length) return answerBytes(length)
  scratchTaken = true
  return scratch.subarray(0, length)
}

/** After `bytes` went to `socket.write` (or were dropped): the scratch buffer is free again, or stays with the pending write. */
function written(bytes: Buffer, socket: Socket): void {
  if (bytes.buffer !== scratch.buffer) return
  if (socket.writableLength > 0) scratch = Buffer.allocUnsafeSlow(scratch.length)
  scratchTaken = false
}

const okHead = Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ', 'latin1')

/** A head up to the Content-Length value: the common one made once, any other per answer. */
function headStart(status: number, extra: readonly string[] | undefined): Buffer {
  if (status === 200 && (extra === undefined || extra.length === 0)) return okHead
  let head = `HTTP/1.1 ${status} ${reasons[status] ?? 'OK'}\r\ncontent-type: application/json\r\n`
  if (extra !== undefined) for (let i = 0; i + 1 < extra.length; i += 2) head += `${extra[i]}: ${extra[i + 1]}\r\n`
  return Buffer.from(`${head}content-length: `, 'latin1')
}

/** One response's bytes: head and body in one buffer, so one write and one packet; a text body is encoded straight into it. */
function responseBytes(answer: FastAnswer, keepAlive: boolean, now: number): Buffer {
  const head = headStart(answer.status, answer.headers)
  const tail = headTail(keepAlive, now)
  const text = typeof answer.body === 'string' ? answer.body : undefined
  const bodyLength = text === undefined ? answer.body.length : Buffer.byteLength(text)
  const length = String(bodyLength)
  const bytes = responseBuffer(head.length + length.length + tail.length + bodyLength)
  bytes.set(head, 0)
  let at = head.length + bytes.write(length, head.length, 'latin1')
  bytes.set(tail, at)
  at += tail.length
  if (text === undefined) bytes.set(answer.body as Uint8Array, at)
  else bytes.write(text, at, 'utf8')
  return bytes
}

type Slot = { bytes: Buffer | undefined; close: boolean }

type Connection<Pass> = {
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

/**
 * Puts the fast path in front of `server`'s own connection handling (node:http's 'connection'
 * listener, which it calls on handoff). Call before `server.listen`.
 */
export function attachFastPath<Pass>(server: Server, deps: FastPathDeps<Pass>, options: FastPathOptions): FastPath {
  const nodeListeners = server.listeners('connection') as ((socket: Socket) => void)[]
  server.removeAllListeners('connection')
  const deadlines = carryDeadlines(server, timedOut)
  const open = new Set<Connection<Pass>>()
  let answered = 0
  let handedOff = 0
  // Requests read but not answered yet (their slots are taken, so answers stay in order), and the
  // requests answered in this turn; a check-phase callback ends the turn and answers the next ones.
  const waiting: { c: Connection<Pass>; request: FastRequest; body: Buffer; pass: Pass | undefined; slot: Slot }[] = []
  let spent = 0
  let turnEnds = false
  // Note: the time read once per read of a socket, turn or database answer, not per request (a clock read showed in perf).
  let clock = Date.now()
  const bound = options.requestsPerTurn > 0 ? options.requestsPerTurn : Number.POSITIVE_INFINITY
  // The bound while a connection arrived since the last sweep or the one before it, else none.
  let budget = bound
  let arrived = false
  // Note: a refused body: at most `discardBytes` of it are read and dropped, and the connection is cut this long after the refusal (as http.ts's 413).
  const discardMs = Math.min(5000, options.requestTimeoutMs)
  const discardBytes = 64 * 1024

  function endTurn(): void {
    clock = Date.now()
    turnEnds = false
    spent = 0
    let next = waiting.shift()
    while (next !== undefined) {
      if (!next.c.socket.destroyed) answer(next.c, next.request, next.body, next.pass, next.slot)
      if (waiting.length === 0) break
      if (spent >= budget) break
      next = waiting.shift()
    }
    if (waiting.length > 0 && !turnEnds) {
      turnEnds = true
      setImmediate(endTurn)
    }
  }

  /** Answers now while the turn's budget lasts and nobody waits; else takes the request's slot and queues it. */
  function schedule(c: Connection<Pass>, request: FastRequest, body: Buffer, pass: Pass | undefined): void {
    if (!turnEnds) {
      turnEnds = true
      setImmediate(endTurn)
    }
    if (spent < budget && waiting.length === 0) return answer(c, request, body, pass)
    const slot: Slot = { bytes: undefined, close: !request.keepAlive }
    c.slots.push(slot)
    waiting.push({ c, request, body, pass, slot })
  }

  function giveToNode(c: Connection<Pass>): void {
    handedOff++
    open.delete(c)
    const { socket } = c
    const buffer = c.body === undefined ? c.buffer : c.kept.subarray(0, c.have)
    socket.removeListener('data', c.onData)
    socket.removeListener('end', c.onEnd)
    socket.removeListener('close', c.onClose)
    socket.removeListener('error', ignore)
    socket.removeListener('drain', c.onDrain)
    // Note: the request under way keeps the deadline of its first byte (node:http's would start now).
    if (c.startedAt !== 0) deadlines.carry(socket, c.startedAt + options.requestTimeoutMs)
    // Note: node:http attaches its parser, then the bytes already read are fed to it at once, before any new ones.
    socket.pause()
    for (const listener of nodeListeners) listener.call(server, socket)
    if (buffer.length > 0) socket.emit('data', buffer)
    // Note: the client's FIN came while the fast path held the connection: node:http reads it now
    // (a request cut short: its 400; else it ends its side too).
    if (c.ended) socket.emit('end')
    else socket.resume()
  }

  /** After the client's FIN and every answer written: close, or node:http's verdict on the request cut short. */
  function finish(c: Connection<Pass>): void {
    if (c.buffer.length === 0 && c.body === undefined) {
      open.delete(c)
      c.socket.end()
    } else giveToNode(c)
  }

  function flush(c: Connection<Pass>): void {
    const { slots, socket } = c
    while (slots.length > 0 && slots[0]!.bytes !== undefined) {
      const slot = slots.shift() as Slot
      // Note: a client that sends and never reads: stop reading it until its answers drain.
      const bytes = slot.bytes as Buffer
      if (!socket.destroyed && !socket.write(bytes)) socket.pause()
      written(bytes, socket)
      if (slot.close) {
        c.stopped = true
        socket.end()
        open.delete(c)
        return
      }
    }
    if (slots.length === 0) {
      if (c.handOffPending) return giveToNode(c)
      if (c.ended) return finish(c)
      if (c.buffer.length === 0 && c.body === undefined) c.idleSince = clock
    }
  }

  function answer(c: Connection<Pass>, request: FastRequest, body: Buffer, pass: Pass | undefined, taken?: Slot): void {
    let slot = taken
    if (slot === undefined) {
      slot = { bytes: undefined, close: !request.keepAlive }
      c.slots.push(slot)
    }
    const s = slot
    answered++
    let result: FastAnswer | Promise<FastAnswer>
    try {
      result = deps.serve(request, body, pass)
    } catch (error) {
      result = { ...deps.failed(error), close: true }
    }
    // Note: only answers written now count against the turn's bound: a request that waits for the
    // database cost its parse here, and the misses of one turn share a statement (cache off,
    // counting them too held each statement to 8 lookups: 9,800 against 14,000 req/s).
    if (!(result instanceof Promise)) spent++
    // Note: closures only when the answer has to wait; a cached answer is written in this call.
    if (result instanceof Promise)
      result.then(
        (a) => {
          clock = Date.now()
          complete(c, s, a)
        },
        (error: unknown) => {
          clock = Date.now()
          complete(c, s, { ...deps.failed(error), close: true })
        },
      )
    else complete(c, s, result)
  }

  function complete(c: Connection<Pass>, slot: Slot, a: FastAnswer): void {
    // Note: the connection went while this answer was made: nothing to write.
    if (c.socket.destroyed) return
    const close = slot.close || a.close === true || deps.closing()
    slot.close = close
    slot.bytes = responseBytes(a, !close, clock)
    if (c.slots[0] === slot) flush(c)
  }

  /** A head whose body is still to come: checked now, and its bytes kept (in one buffer that doubles) only once it passed. */
  function awaitBody(c: Connection<Pass>, request: FastRequest): void {
    c.body = request
    c.kept = c.buffer
    c.have = c.buffer.length
    c.buffer = empty
    let checked: HeadCheck<Pass> | Promise<HeadCheck<Pass>>
    try {
      checked = deps.check(request)
    } catch (error) {
      checked = { ok: false, refusal: deps.failed(error) }
    }
    if (!(checked instanceof Promise)) return headChecked(c, checked)
    c.checking = true
    c.socket.pause()
    checked.then(
      (verdict) => headChecked(c, verdict),
      (error: unknown) => headChecked(c, { ok: false, refusal: deps.failed(error) }),
    )
  }

  function headChecked(c: Connection<Pass>, verdict: HeadCheck<Pass>): void {
    const { socket } = c
    const waited = c.checking
    c.checking = false
    if (!open.has(c) || socket.destroyed) return
    clock = Date.now()
    if (!verdict.ok) return refuse(c, verdict.refusal)
    c.pass = verdict.pass
    if (waited && !c.handOffPending && !socket.writableNeedDrain) socket.resume()
    if (c.have >= (c.body as FastRequest).end) bodyArrived(c)
    else if (c.ended && c.slots.length === 0) finish(c)
  }

  /**
   * The refusal of a head goes out now with `Connection: close` (then the FIN); at most
   * `discardBytes` more of the body are read and dropped (a body nearly all sent ends cleanly: no
   * reset), then the socket is no longer read and is cut `discardMs` after the refusal. Note: every
   * read is a fresh 64 KiB buffer, garbage until a GC: dropping whole bodies (node:http's way)
   * piled up ~50 MB for 40 clients sending 5 MiB each; unread bytes wait in the kernel instead, and
   * a client that reads while it sends (curl, fetch, node) has its answer long before the cut.
   */
  function refuse(c: Connection<Pass>, refusal: FastAnswer): void {
    const request = c.body as FastRequest
    let left = request.end - c.have
    let dropped = 0
    c.body = undefined
    c.kept = empty
    c.stopped = true
    const { socket } = c
    const cut = setTimeout(() => socket.destroy(), discardMs)
    cut.unref()
    socket.once('close', () => clearTimeout(cut))
    socket.removeListener('data', c.onData)
    socket.removeListener('drain', c.onDrain)
    const reading = () => dropped < discardBytes && !c.handOffPending && !socket.writableNeedDrain
    socket.on('data', (chunk: Buffer) => {
      left -= chunk.length
      dropped += chunk.length
      if (left <= 0 && !open.has(c)) socket.destroySoon()
      else if (!reading()) socket.pause()
    })
    socket.on('drain', () => {
      if (reading()) socket.resume()
    })
    socket.once('end', () => {
      if (!open.has(c)) socket.destroySoon()
    })
    if (reading()) socket.resume()
    const slot: Slot = { bytes: undefined, close: true }
    c.slots.push(slot)
    answered++
    complete(c, slot, { ...refusal, close: true })
    // Note: once the refusal is written (the connection has left `open`); if earlier answers hold it back, the cut bounds it.
    if ((left <= 0 || c.ended) && !open.has(c)) socket.destroySoon()
  }

  function keep(c: Connection<Pass>, chunk: Buffer): void {
    const need = c.have + chunk.length
    if (need > c.kept.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, Math.min(2 * c.kept.length, (c.body as FastRequest).end)))
      grown.set(c.kept.subarray(0, c.have), 0)
      c.kept = grown
    }
    c.kept.set(chunk, c.have)
    c.have = need
  }

  function bodyArrived(c: Connection<Pass>): void {
    const request = c.body as FastRequest
    const bytes = c.kept.subarray(0, c.have)
    const pass = c.pass
    c.body = undefined
    c.pass = undefined
    c.kept = empty
    c.buffer = bytes
    take(c, request, pass)
    read(c)
  }

  /** The request at the start of c.buffer is all there: it is answered (in order) and its bytes leave the buffer. */
  function take(c: Connection<Pass>, request: FastRequest, pass: Pass | undefined): void {
    const body = c.buffer.subarray(request.bodyStart, request.end)
    c.buffer = c.buffer.subarray(request.end)
    c.startedAt = c.buffer.length > 0 ? clock : 0
    // Note: after `Connection: close` nothing more is read; the connection ends with its answer.
    if (!request.keepAlive) c.stopped = true
    schedule(c, request, body, pass)
  }

  function read(c: Connection<Pass>): void {
    while (!c.stopped && c.buffer.length > 0) {
      let verdict: FastRequest | typeof incomplete | typeof handOff | undefined = c.memo === undefined ? undefined : repeatedHead(c.memo, c.buffer, options)
      if (verdict === undefined) {
        verdict = parseRequest(c.buffer, options)
        if (typeof verdict === 'object') c.memo = rememberHead(c.buffer, verdict)
      }
      if (verdict === incomplete) break
      if (verdict === handOff) {
        c.stopped = true
        if (c.slots.length === 0) giveToNode(c)
        else {
          c.handOffPending = true
          c.socket.pause()
        }
        return
      }
      if (c.buffer.length < verdict.end) {
        if (c.startedAt === 0) c.startedAt = clock
        return awaitBody(c, verdict)
      }
      take(c, verdict, undefined)
    }
    if (c.buffer.length > 0 && c.startedAt === 0) c.startedAt = clock
  }

  const ignore = () => undefined

  server.on('connection', (socket: Socket) => {
    arrived = true
    budget = bound
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
      onData: (chunk: Buffer) => {
        if (c.stopped) return
        clock = Date.now()
        c.idleSince = 0
        if (c.body !== undefined) {
          keep(c, chunk)
          if (!c.checking && c.have >= c.body.end) bodyArrived(c)
          return
        }
        c.buffer = c.buffer.length === 0 ? chunk : Buffer.concat([c.buffer, chunk])
        read(c)
      },
      onEnd: () => {
        c.ended = true
        if (c.stopped && !c.handOffPending) return
        c.stopped = true
        if (c.slots.length === 0 && !c.checking && !c.handOffPending) finish(c)
      },
      onClose: () => {
        open.delete(c)
        // Note: answers never written (the connection went first) give the scratch buffer back.
        for (const slot of c.slots) if (slot.bytes !== undefined) written(slot.bytes, socket)
        c.slots.length = 0
      },
      onDrain: () => {
        if (!c.handOffPending && !c.checking) socket.resume()
      },
    }
    socket.on('data', c.onData)
    socket.on('end', c.onEnd)
    socket.on('drain', c.onDrain)
    socket.on('close', c.onClose)
    socket.on('error', ignore)
    socket.setNoDelay(true)
    open.add(c)
  })

  // Note: one sweep a second for every connection instead of a timer per request.
  const sweep = setInterval(() => {
    const now = Date.now()
    if (!arrived) budget = Number.POSITIVE_INFINITY
    arrived = false
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
  }, 1000)
  sweep.unref()

  return {
    get connections() {
      return open.size
    },
    get answered() {
      return answered
    },
    get handedOff() {
      return handedOff
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
