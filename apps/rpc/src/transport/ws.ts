import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Hex } from '@uncle-rpc/chain'
import type { Logger } from '@uncle-rpc/config'
import { type WebSocket, WebSocketServer } from 'ws'
import type { Answer } from '../pipeline/answer.js'
import type { KeyCheckDeps } from '../admission/admission.js'
import type { RpcLimits } from './limits.js'
import { createFlowControl } from './wsFlowControl.js'
import { startKeepAlive } from './wsKeepAlive.js'
import { createMessageHandler } from './wsMessages.js'
import { createFrameBatch, readPlainFrames } from './wsSocket.js'
import { createVerifyClient, type WsAccepted } from './wsUpgrade.js'

/** The network and key checks' (admission.ts; usage counts upgrades and messages refused) and the answer's. */
export type WsDeps = KeyCheckDeps & {
  answer: Answer
  limits: RpcLimits
  logger: Logger
}

/**
 * WebSocket endpoints `/ws/v3/<key>` and `/<network>/ws/v3/<key>` on the HTTP server's upgrade
 * event (a plain ws server; every upgrade is checked against wsPath, here only). The key,
 * network and the key's restrictions (Origin, User-Agent, secret: 403 -32002) are checked in ws's
 * verifyClient by the same step as HTTP's (wsUpgrade.ts, admission.ts), so a bad one is refused with an HTTP status before the handshake (a key that
 * cannot be checked now: 503 with Retry-After); a refusal of a known key (revoked, a restriction) is
 * counted in usage, as is a message refused when the key changed since. Each message goes through answer() (wsMessages.ts: rate limits, failover by key setting — there are
 * no per-message headers —, the handler) and is answered on the same socket. Messages are not
 * shed under overload: each socket is paced by its own backpressure (wsFlowControl.ts: at most
 * --ws-max-in-flight answered at once, then the socket is not read), which pushes back through
 * TCP instead of asking a client that keeps its connection to retry. Pings and the idle timeout: wsKeepAlive.ts.
 */
export function attachWebSocket(deps: WsDeps, server: Server): { close: () => Promise<void>; connections: () => number; plainMessages: () => number } {
  const { limits, logger } = deps
  const accepted = new WeakMap<IncomingMessage, WsAccepted>()
  const connections = new Map<Hex, number>()
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxWsMessageBytes,
    perMessageDeflate: false,
    verifyClient: createVerifyClient(deps, { connections, accepted }),
  })
  wss.on('error', (error) => logger.debug({ msg: 'WebSocket server error', error: error.message }))
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, req))
  }
  server.on('upgrade', onUpgrade)
  const keepAlive = startKeepAlive(wss.clients, limits)
  const messageDeps = { ...deps, keepAlive }
  // Messages read beneath ws (wsFrames.ts), since start.
  let plainMessages = 0

  function onConnection(ws: WebSocket, req: IncomingMessage) {
    const state = accepted.get(req)
    if (state === undefined) return ws.close(1011)
    const { keyHash } = state
    connections.set(keyHash, (connections.get(keyHash) ?? 0) + 1)
    keepAlive.opened(ws)
    ws.on('close', () => {
      const n = (connections.get(keyHash) ?? 1) - 1
      if (n === 0) connections.delete(keyHash)
      else connections.set(keyHash, n)
    })
    // Note: ws reports protocol violations (e.g. a message over maxPayload) here, then closes.
    ws.on('error', (error) => logger.debug({ msg: 'WebSocket error', error: error.message }))
    ws.on('pong', () => keepAlive.ponged(ws))
    const flow = createFlowControl(ws, limits, logger)
    ws.on('close', () => flow.closed())
    const frames = createFrameBatch(ws)
    ws.on('close', frames.flush)
    const onMessage = createMessageHandler(messageDeps, ws, state, flow, frames)
    readPlainFrames(
      ws,
      limits.maxWsMessageBytes,
      (text) => {
        plainMessages++
        onMessage(text)
      },
      flow.check,
      frames.unbatch,
    )
    ws.on('message', (data) => {
      const text = typeof data === 'string' ? data : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8')
      onMessage(text)
    })
  }

  return {
    connections: () => wss.clients.size,
    plainMessages: () => plainMessages,
    close: () =>
      new Promise((resolve) => {
        keepAlive.stop()
        server.off('upgrade', onUpgrade)
        for (const ws of wss.clients) ws.close(1001, 'server shutting down')
        wss.close(() => resolve())
      }),
  }
}
