import type { IncomingMessage, Server } from 'node:http'
import type { Socket } from 'node:net'
import type { EventEmitter } from 'node:events'
import type { Duplex } from 'node:stream'
import type { Hex } from '@uncle-rpc/chain'
import type { Logger } from '@uncle-rpc/config'
import { errorResponse, InternalError, LimitExceededError, NotFoundError } from '@uncle-rpc/jsonrpc'
import { type ClientFrame, moreBytes, readFrame, textFrame, wsTakes } from '@uncle-rpc/wire'
import { type WebSocket, WebSocketServer } from 'ws'
import type { Answer, Outcome } from '../pipeline/answer.js'
import type { AuthResult } from '../access/auth.js'
import type { AccessHeaders } from '@uncle-rpc/accounts'
import { type KeyCheckDeps, keyVerdict, requestNetwork } from '../admission/admission.js'
import type { RpcLimits } from './limits.js'
import type { ServedNetwork } from '../methods/context.js'
import { wsNotFoundText, wsPath } from './routes.js'

/** The network and key checks' (admission.ts; usage counts upgrades and messages refused) and the answer's. */
export type WsDeps = KeyCheckDeps & {
  answer: Answer
  limits: RpcLimits
  logger: Logger
}

const jsonHeaders = { 'Content-Type': 'application/json' }
type Refusal = { status: number; body: string; retryAfter?: number | undefined }
type Accepted = { network: ServedNetwork; keyHash: Hex; key: string; headers: AccessHeaders }

/**
 * WebSocket endpoints `/ws/v3/<key>` and `/<network>/ws/v3/<key>` on the HTTP server's upgrade
 * event (a plain ws server; every upgrade is checked against wsPath, here only). The key,
 * network and the key's restrictions (Origin, User-Agent, secret: 403 -32002) are checked in ws's
 * verifyClient by the same step as HTTP's (admission.ts), so a bad one is refused with an HTTP status before the handshake (a key that
 * cannot be checked now: 503 with Retry-After); a refusal of a known key (revoked, a restriction) is
 * counted in usage, as is a message refused when the key changed since. Each message goes through answer() (rate limits, failover by key setting — there are
 * no per-message headers —, the handler) and is answered on the same socket. Messages are not
 * shed under overload: each socket is paced by its own backpressure (flow control: at most
 * --ws-max-in-flight answered at once, then the socket is not read), which pushes back through
 * TCP instead of asking a client that keeps its connection to retry.
 */
export function attachWebSocket(deps: WsDeps, server: Server): { close: () => Promise<void>; connections: () => number; plainMessages: () => number } {
  const { resolver, auth, usage, answer, limits, logger } = deps
  const accepted = new WeakMap<IncomingMessage, Accepted>()
  const connections = new Map<Hex, number>()
  const notFound: Refusal = { status: 404, body: errorResponse('null', new NotFoundError(wsNotFoundText)) }
  const tooMany: Refusal = {
    status: 429,
    body: errorResponse('null', new LimitExceededError(`too many WebSocket connections for this key (limit ${limits.maxWsConnectionsPerKey})`)),
  }

  async function verify(req: IncomingMessage): Promise<Refusal | Accepted> {
    const match = wsPath.exec(req.url ?? '')
    if (match === null) return notFound
    const network = requestNetwork(resolver, match[1], req.headers.host)
    if ('status' in network) return network
    const { origin, authorization } = req.headers
    const headers: AccessHeaders = { origin, userAgent: req.headers['user-agent'], authorization }
    const verdict = keyVerdict(await auth.authenticate(match[2]), network, headers, usage)
    if (!verdict.ok) return verdict
    if ((connections.get(verdict.key.keyHash) ?? 0) >= limits.maxWsConnectionsPerKey) return tooMany
    return { network, keyHash: verdict.key.keyHash, key: match[2]!, headers }
  }

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxWsMessageBytes,
    perMessageDeflate: false,
    verifyClient: ({ req }, done) => {
      verify(req).then(
        (outcome) => {
          if ('status' in outcome)
            return done(false, outcome.status, outcome.body, outcome.retryAfter === undefined ? jsonHeaders : { ...jsonHeaders, 'Retry-After': String(outcome.retryAfter) })
          accepted.set(req, outcome)
          done(true)
        },
        (error: unknown) => {
          logger.error({ msg: 'WebSocket upgrade check failed', error: (error as Error).message })
          done(false, 503, errorResponse('null', new InternalError()), jsonHeaders)
        },
      )
    },
  })
  wss.on('error', (error) => logger.debug({ msg: 'WebSocket server error', error: error.message }))
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, req))
  }
  server.on('upgrade', onUpgrade)
  // Note: a message only marks its socket active; the sweep turns that into a time (a clock read per message costs more).
  const lastSeen = new WeakMap<WebSocket, number>()
  // Messages read beneath ws (wsFrames.ts), since start.
  let plainMessages = 0
  const active = new WeakSet<WebSocket>()
  const awaitingPong = new WeakSet<WebSocket>()

  function onConnection(ws: WebSocket, req: IncomingMessage) {
    const state = accepted.get(req)
    if (state === undefined) return ws.close(1011)
    const { keyHash, network, key, headers } = state
    connections.set(keyHash, (connections.get(keyHash) ?? 0) + 1)
    lastSeen.set(ws, Date.now())
    ws.on('close', () => {
      const n = (connections.get(keyHash) ?? 1) - 1
      if (n === 0) connections.delete(keyHash)
      else connections.set(keyHash, n)
    })
    // Note: ws reports protocol violations (e.g. a message over maxPayload) here, then closes.
    ws.on('error', (error) => logger.debug({ msg: 'WebSocket error', error: error.message }))
    ws.on('pong', () => awaitingPong.delete(ws))
    const flow = createFlowControl(ws, limits, logger)
    ws.on('close', () => flow.closed())
    // Note: before coalesceWrites, which adds a 'data' listener of its own.
    readPlainFrames(
      ws,
      limits.maxWsMessageBytes,
      (text) => {
        plainMessages++
        onMessage(text)
      },
      flow.check,
    )
    coalesceWrites(ws)
    ws.on('message', (data) => {
      const text = typeof data === 'string' ? data : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8')
      onMessage(text)
    })

    function onMessage(text: string): void {
      active.add(ws)
      flow.started()
      // Note: the key is checked again per message (a map lookup), so a revocation or a limit change reaches open sockets.
      // Note: no promise hop while nothing has to wait (a key in memory, a cached answer): each costs a turn of the microtask queue.
      try {
        const checked = auth.authenticate(key)
        const outcome = checked instanceof Promise ? checked.then((c) => admitted(c, text)) : admitted(checked, text)
        if (outcome instanceof Promise) outcome.then(reply, failed)
        else reply(outcome)
      } catch (error) {
        failed(error)
      }
    }

    /** The message's answer once its key is checked; undefined when the key refused it (answered and handled here). */
    function admitted(checked: AuthResult, text: string): Outcome | Promise<Outcome> | undefined {
      // Note: restrictions changed since the upgrade apply too (checked against the upgrade's headers).
      const verdict = keyVerdict(checked, network, headers, usage)
      if (verdict.ok) return answer(text, verdict.key, network, false)
      if (ws.readyState === ws.OPEN) ws.send(verdict.body)
      // Note: a key that cannot be checked now is answered with the error; the socket stays open.
      if (verdict.status === 503) return undefined
      ws.close(1008, verdict.status === 403 ? 'rejected due to project ID settings' : 'invalid project id')
      return undefined
    }

    function reply(outcome: Outcome | undefined): void {
      // Note: a refused message (-32005) is answered like any other; the socket stays open.
      // Note: a text frame whether the body is text or bytes (ws would send bytes as binary).
      // Note: framed here and written to the socket (ws's sender writes whole frames at once too, so frames never interleave).
      if (outcome !== undefined && outcome.body.length > 0 && ws.readyState === ws.OPEN) socketOf(ws).write(textFrame(outcome.body))
      flow.answered()
    }

    function failed(error: unknown): void {
      flow.answered()
      logger.error({ msg: 'WebSocket message failed', error: (error as Error).message })
    }
  }

  // One timer for every socket: drop those that missed the last ping, close the idle ones.
  const sweep = setInterval(
    () => {
      const now = Date.now()
      for (const ws of wss.clients) {
        if (active.delete(ws)) lastSeen.set(ws, now)
        if (awaitingPong.has(ws)) {
          ws.terminate()
          continue
        }
        if (now - (lastSeen.get(ws) ?? now) >= limits.wsIdleTimeoutMs) {
          ws.close(1000, 'idle timeout')
          continue
        }
        awaitingPong.add(ws)
        ws.ping()
      }
    },
    Math.min(limits.wsPingIntervalMs, limits.wsIdleTimeoutMs),
  )
  sweep.unref()

  return {
    connections: () => wss.clients.size,
    plainMessages: () => plainMessages,
    close: () =>
      new Promise((resolve) => {
        clearInterval(sweep)
        server.off('upgrade', onUpgrade)
        for (const ws of wss.clients) ws.close(1001, 'server shutting down')
        wss.close(() => resolve())
      }),
  }
}

const socketOf = (ws: WebSocket) => (ws as unknown as { _socket: Socket })._socket

/**
 * Reads the socket's frames beneath ws while they are plain (wsFrames.ts): each text message goes
 * to `onMessage`; a ping or a pong goes to ws's own Receiver's handlers, so ws answers the ping
 * and bounds the pongs not yet written as it always does (past maxPendingAutoPongs, 60, it cuts
 * the socket), and then `onControl` lets the flow control count the pong's bytes. At the first
 * frame of any other kind the bytes from there on go to ws's own reader (its socket listener), for good.
 * Note: ws's listener is the socket's only 'data' listener right after the handshake; if that is
 * ever not so, ws reads everything, as before.
 */
function readPlainFrames(ws: WebSocket, maxPayload: number, onMessage: (text: string) => void, onControl: () => void): void {
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
function coalesceWrites(ws: WebSocket): void {
  const socket = (ws as unknown as { _socket: Socket })._socket
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

/**
 * Backpressure for one WebSocket: while more than `wsMaxInFlight` of its messages are being
 * answered, or more than `wsMaxQueuedBytes` of answers wait for the client to take them, the
 * socket is not read (TCP then pushes back on the client). Held like this for `wsStalledCloseMs`
 * it is closed with 1013 and, as a client that does not read cannot take the close frame either,
 * dropped a second later. So one connection holds at most about in-flight × largest answer plus
 * the queued bytes, and all of it is freed when it goes.
 */
function createFlowControl(ws: WebSocket, limits: RpcLimits, logger: Logger) {
  // Note: 'drain' of the TCP socket says the client took queued answers (ws has no event for it).
  const socket = (ws as unknown as { _socket: Socket })._socket
  let inFlight = 0
  let paused = false
  let stall: NodeJS.Timeout | undefined
  let drop: NodeJS.Timeout | undefined

  const check = () => {
    const over = inFlight >= limits.wsMaxInFlight || ws.bufferedAmount >= limits.wsMaxQueuedBytes
    if (over && !paused && ws.readyState === ws.OPEN) {
      paused = true
      ws.pause()
      stall = setTimeout(() => {
        logger.warn({ msg: 'WebSocket closed: the client does not take its answers', in_flight: inFlight, queued_bytes: ws.bufferedAmount })
        ws.close(1013, 'too many answers waiting: read them or send fewer requests')
        drop = setTimeout(() => ws.terminate(), 1000)
      }, limits.wsStalledCloseMs)
    } else if (!over && paused) {
      paused = false
      clearTimeout(stall)
      ws.resume()
    }
  }
  // Note: past the queued-bytes bound the socket's writes return false, so it emits 'drain' once empty.
  socket.on('drain', check)

  return {
    /** After a pong was queued (its bytes count toward the queued bytes). */
    check,
    started() {
      inFlight++
      check()
    },
    answered() {
      inFlight--
      check()
    },
    closed() {
      clearTimeout(stall)
      clearTimeout(drop)
      socket.off('drain', check)
    },
  }
}
