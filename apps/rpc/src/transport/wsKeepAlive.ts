import type { WebSocket } from 'ws'
import type { RpcLimits } from './limits.js'

export type WsKeepAlive = {
  /** A socket opened, or sent a message (which only marks it active: the sweep turns that into a time, as a clock read per message costs more). */
  opened(ws: WebSocket): void
  heard(ws: WebSocket): void
  /** Its pong to the last ping came. */
  ponged(ws: WebSocket): void
  stop(): void
}

/**
 * One timer for every socket of `clients`: each gets a ping every wsPingIntervalMs; one that
 * missed the last ping is dropped, and one that sent nothing for wsIdleTimeoutMs is closed.
 */
export function startKeepAlive(clients: Set<WebSocket>, limits: RpcLimits): WsKeepAlive {
  const lastSeen = new WeakMap<WebSocket, number>()
  const active = new WeakSet<WebSocket>()
  const awaitingPong = new WeakSet<WebSocket>()
  const sweep = setInterval(
    () => {
      const now = Date.now()
      for (const ws of clients) {
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
    opened: (ws) => void lastSeen.set(ws, Date.now()),
    heard: (ws) => void active.add(ws),
    ponged: (ws) => void awaitingPong.delete(ws),
    stop: () => clearInterval(sweep),
  }
}
