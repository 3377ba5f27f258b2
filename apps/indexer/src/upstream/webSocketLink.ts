import { BaseError } from '@uncle-rpc/errors'
import { WebSocket } from 'ws'
import type { TransportFailure } from './failure.js'

/**
 * A request over the WebSocket that failed: how (for classifyFailure). The message never holds
 * the node's URL, which may carry an API key.
 */
export class WebSocketRequestError extends BaseError {
  readonly failure: TransportFailure
  constructor(failure: TransportFailure, options: { cause?: unknown } = {}) {
    const what = failure.kind === 'rpc error' ? `JSON-RPC error ${String(failure.code)}` : failure.kind === 'timeout' ? 'timed out' : 'socket closed'
    super(`WebSocket request failed: ${what}`, { name: 'WebSocketRequestError', ...options })
    this.failure = failure
  }
}

const socketClosed = () => new WebSocketRequestError({ kind: 'connection' })

/** What the head follower hears from a newHeads subscription. */
export type NewHeadsHandlers = {
  /** A notification arrived: something changed at the head (a trigger; its content is not used). */
  onHead: () => void
  /** The subscription is (again) in place, after the first subscribe and after every reconnect. */
  onSubscribed: () => void
  /** The socket closed or subscribing failed; the link keeps reconnecting. */
  onError: (error: Error) => void
}

/** One upstream's WebSocket to a ws(s):// node: JSON-RPC requests and a newHeads subscription. */
export type WebSocketLink = {
  request(method: string, params: unknown[]): Promise<unknown>
  /** Keeps a newHeads subscription up (reconnecting with back-off) until the returned function is called. */
  subscribeNewHeads(handlers: NewHeadsHandlers): Promise<() => Promise<void>>
  /** Closes the socket and stops reconnecting. */
  close(): Promise<void>
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }
type Reply = { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown }; method?: string; params?: { subscription?: unknown } }

const maxReconnectDelayMs = 5_000

/**
 * A JSON-RPC client over one WebSocket (the `ws` package), opened on first use and again after a
 * close: requests in flight when it closes fail with a WebSocketRequestError (callers retry). While a
 * newHeads subscription is wanted the link reconnects by itself (250 ms doubling to 5 s) and
 * subscribes again, then tells the subscriber, which must assume it missed heads meanwhile.
 * Errors are reported to callers, never printed.
 */
export function createWebSocketLink(url: string, timeoutMs: number): WebSocketLink {
  let socket: WebSocket | undefined
  let opening: Promise<WebSocket> | undefined
  let nextId = 1
  let closed = false
  const pending = new Map<number, Pending>()
  // The wanted subscription, its id on the current socket, and the reconnect timer.
  let heads: NewHeadsHandlers | undefined
  let subscriptionId: string | undefined
  let reconnectTimer: NodeJS.Timeout | undefined
  let reconnectDelayMs = 250

  const onMessage = (data: unknown) => {
    let reply: Reply
    try {
      reply = JSON.parse(String(data)) as Reply
    } catch {
      return
    }
    if (reply.method === 'eth_subscription') {
      if (reply.params?.subscription === subscriptionId) heads?.onHead()
      return
    }
    const waiting = typeof reply.id === 'number' ? pending.get(reply.id) : undefined
    if (waiting === undefined) return
    pending.delete(reply.id as number)
    clearTimeout(waiting.timer)
    if (reply.error) waiting.reject(new WebSocketRequestError({ kind: 'rpc error', code: reply.error.code }))
    else waiting.resolve(reply.result)
  }

  const onClose = (from: WebSocket) => {
    if (socket !== from) return
    socket = undefined
    opening = undefined
    subscriptionId = undefined
    for (const [id, waiting] of pending) {
      clearTimeout(waiting.timer)
      pending.delete(id)
      waiting.reject(socketClosed())
    }
    if (heads && !closed) {
      heads.onError(socketClosed())
      scheduleReconnect()
    }
  }

  const open = (): Promise<WebSocket> => {
    if (closed) return Promise.reject(socketClosed())
    opening ??= new Promise<WebSocket>((resolve, reject) => {
      const created = new WebSocket(url, { handshakeTimeout: timeoutMs, perMessageDeflate: false })
      socket = created
      created.on('message', onMessage)
      created.once('open', () => resolve(created))
      created.on('error', (error) => {
        reject(new WebSocketRequestError({ kind: 'connection' }, { cause: error }))
        created.terminate()
      })
      created.once('close', () => {
        reject(socketClosed())
        onClose(created)
      })
    })
    return opening
  }

  const request = async (method: string, params: unknown[]): Promise<unknown> => {
    const ws = await open()
    // Note: ws drops what is sent on a closing socket without a word; fail now instead of at the timeout.
    if (ws.readyState !== WebSocket.OPEN) throw socketClosed()
    const id = nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id)
        reject(new WebSocketRequestError({ kind: 'timeout' }))
      }, timeoutMs)
      pending.set(id, { resolve, reject, timer })
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  }

  const subscribe = async () => {
    if (!heads || closed) return
    try {
      subscriptionId = String(await request('eth_subscribe', ['newHeads']))
      reconnectDelayMs = 250
      heads.onSubscribed()
    } catch (error) {
      heads.onError(error as Error)
      // Note: a socket that opened but refused the subscription is closed, so the retry starts clean.
      socket?.terminate()
      scheduleReconnect()
    }
  }

  function scheduleReconnect() {
    if (reconnectTimer || closed || !heads) return
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined
      void subscribe()
    }, reconnectDelayMs)
    reconnectDelayMs = Math.min(maxReconnectDelayMs, reconnectDelayMs * 2)
  }

  return {
    request,
    async subscribeNewHeads(handlers) {
      heads = handlers
      await subscribe()
      return async () => {
        const id = subscriptionId
        heads = undefined
        subscriptionId = undefined
        clearTimeout(reconnectTimer)
        reconnectTimer = undefined
        if (id !== undefined && socket?.readyState === WebSocket.OPEN) await request('eth_unsubscribe', [id]).catch(() => undefined)
      }
    },
    async close() {
      closed = true
      heads = undefined
      clearTimeout(reconnectTimer)
      const current = socket
      if (current === undefined || current.readyState === WebSocket.CLOSED) return
      await new Promise<void>((resolve) => {
        current.once('close', () => resolve())
        current.close()
        setTimeout(() => current.terminate(), 1000).unref()
      })
    },
  }
}
