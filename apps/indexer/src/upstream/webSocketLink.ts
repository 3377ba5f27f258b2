import { webSocket } from 'viem'
import { WebSocket as WsWebSocket } from 'ws'

/** One upstream's WebSocket to a ws(s):// node: viem's transport, plus what it lacks for us. */
export type WebSocketLink = {
  transport: ReturnType<typeof webSocket>
  /** Resolves once this link's socket is open (opening it on first use). */
  open(): Promise<void>
  subscribeNewHeads(onHead: () => void, onError: (error: Error) => void): Promise<() => Promise<void>>
  /** Closes the socket, if one was opened. */
  close(): Promise<void>
}

type SocketClient = { close(): void }

// Numbers this process's links, so each gets its own socket (see below).
let links = 0

/**
 * A WebSocket link for one upstream. Reconnects forever (1 s apart); subscriptions are renewed
 * on reconnect by viem.
 */
export function createWebSocketLink(url: string, timeoutMs: number): WebSocketLink {
  // Note: viem's transport takes the global WebSocket (Node 22+), else the `ws` package npm
  // hoisted, here ws 7, which it cannot construct. On Node 20 ws 8's class becomes the global.
  const global = globalThis as { WebSocket?: unknown }
  if (global.WebSocket === undefined) global.WebSocket = WsWebSocket
  // Note: viem shares one socket among transports with equal options and opens two when two
  // first requests race, leaking one (the process then never exits). So every link has its own
  // options (the attempt count, practically infinite either way) and opens its socket once.
  const transport = webSocket(url, {
    retryCount: 0,
    timeout: timeoutMs,
    reconnect: { attempts: Number.MAX_SAFE_INTEGER - ++links, delay: 1_000 },
  })
  const value = transport({ retryCount: 0 }).value as NonNullable<ReturnType<typeof transport>['value']>
  let opening: Promise<SocketClient> | undefined

  const open = () => {
    opening ??= value.getRpcClient().catch((error: unknown) => {
      opening = undefined
      throw error
    })
    return opening
  }

  return {
    transport,
    async open() {
      await open()
    },
    async subscribeNewHeads(onHead, onError) {
      await open()
      const { unsubscribe } = await value.subscribe({ params: ['newHeads'], onData: () => onHead(), onError })
      return async () => {
        await unsubscribe()
      }
    },
    async close() {
      const current = opening
      opening = undefined
      const client = await current?.catch(() => undefined)
      client?.close()
    },
  }
}
