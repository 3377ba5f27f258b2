import type { Logger } from '@uncle-rpc/config'
import type { WebSocket } from 'ws'
import type { RpcLimits } from './limits.js'
import { socketOf } from './wsSocket.js'

export type FlowControl = ReturnType<typeof createFlowControl>

/**
 * Backpressure for one WebSocket: while more than `wsMaxInFlight` of its messages are being
 * answered, or more than `wsMaxQueuedBytes` of answers wait for the client to take them, the
 * socket is not read (TCP then pushes back on the client). Held like this for `wsStalledCloseMs`
 * it is closed with 1013 and, as a client that does not read cannot take the close frame either,
 * dropped a second later. So one connection holds at most about in-flight × largest answer plus
 * the queued bytes, and all of it is freed when it goes.
 */
export function createFlowControl(ws: WebSocket, limits: RpcLimits, logger: Logger) {
  // Note: 'drain' of the TCP socket says the client took queued answers (ws has no event for it).
  const socket = socketOf(ws)
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
