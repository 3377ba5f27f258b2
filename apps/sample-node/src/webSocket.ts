import { randomBytes } from 'node:crypto'
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { createJsonRpcHandler, JsonRpcError, type JsonRpcMethods } from '@uncle-rpc/jsonrpc'
import { type WebSocket, WebSocketServer } from 'ws'

// The WebSocket transport on the HTTP port, as geth with --ws: the same methods, plus
// eth_subscribe/eth_unsubscribe for `newHeads`. Like geth, a notification carries the head the
// node has when it announces, not every block: several blocks imported at once (a burst) bring
// one notification with the last of them, and a reorg brings one with the new head only.

type Connection = { socket: WebSocket; subscriptions: Set<string> }

export type SampleNodeWebSocket = {
  /** Sends the current head (from `head()`) to every newHeads subscription. */
  announceHead(): void
  /** Subscriptions open now (for tests and logs). */
  subscriptions(): number
  close(): void
}

export type AttachWebSocketParameters = {
  methods: JsonRpcMethods<unknown>
  maxBatchSize: number
  /** The head as a newHeads notification shows it (geth: the header fields). */
  head: () => Record<string, unknown> | null
  onInternalError?: ((error: unknown, correlationId: string) => void) | undefined
}

const newSubscriptionId = () => `0x${randomBytes(16).toString('hex')}`

/** Serves WebSocket upgrades of `server` (any path, as geth on its ws port). */
export function attachWebSocket(server: Server, parameters: AttachWebSocketParameters): SampleNodeWebSocket {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 5 * 1024 * 1024, perMessageDeflate: false })
  const connections = new Set<Connection>()
  const methods: JsonRpcMethods<Connection> = {
    ...parameters.methods,
    eth_subscribe: (params, connection) => {
      const kind = Array.isArray(params) ? params[0] : undefined
      if (kind !== 'newHeads') throw new JsonRpcError(-32602, `unsupported subscription "${String(kind)}": the sample node has newHeads only`)
      const id = newSubscriptionId()
      connection.subscriptions.add(id)
      return id
    },
    eth_unsubscribe: (params, connection) => {
      const id = Array.isArray(params) ? params[0] : undefined
      if (typeof id !== 'string') throw new JsonRpcError(-32602, 'missing value for required argument 0')
      return connection.subscriptions.delete(id)
    },
  }
  const handler = createJsonRpcHandler<Connection>({
    methods,
    maxBatchSize: parameters.maxBatchSize,
    geth: true,
    onInternalError: (error, correlationId) => parameters.onInternalError?.(error, correlationId),
  })

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      const connection: Connection = { socket: ws, subscriptions: new Set() }
      connections.add(connection)
      ws.on('close', () => connections.delete(connection))
      ws.on('error', () => ws.terminate())
      ws.on('message', (data) => {
        void handler.handle(String(data), connection).then((body) => {
          if (body !== undefined && ws.readyState === ws.OPEN) ws.send(body)
        })
      })
    })
  }
  server.on('upgrade', onUpgrade)

  return {
    announceHead() {
      const result = parameters.head()
      if (result === null) return
      for (const { socket, subscriptions } of connections)
        for (const subscription of subscriptions)
          if (socket.readyState === socket.OPEN)
            socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } }))
    },
    subscriptions: () => [...connections].reduce((sum, c) => sum + c.subscriptions.size, 0),
    close() {
      server.off('upgrade', onUpgrade)
      for (const { socket } of connections) socket.terminate()
      wss.close()
    },
  }
}
