import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'

// Test-only: a WebSocket front for an HTTP JSON-RPC node (the sample node speaks HTTP only).
// Requests are forwarded as they are; `eth_subscribe` to `newHeads` sends the node's new head
// block each time its number or hash changes (polled every 50 ms), as geth does over ws.

export type WsBridge = { url: string; subscriptions(): number; close(): Promise<void> }

type Message = { id?: unknown; method?: string; params?: unknown[] }

async function post(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return response.json()
}

export async function startWsBridge(httpUrl: string): Promise<WsBridge> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  let subscriptions = 0
  const timers = new Set<NodeJS.Timeout>()

  const subscribe = (socket: WebSocket, id: string) => {
    subscriptions++
    let last = ''
    const timer = setInterval(async () => {
      try {
        const answer = (await post(httpUrl, { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] })) as {
          result?: { hash: string }
        }
        if (!answer.result || answer.result.hash === last) return
        last = answer.result.hash
        socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result: answer.result } }))
      } catch {
        // Note: the node may be gone at the end of a test; the next tick tries again.
      }
    }, 50)
    timers.add(timer)
    socket.once('close', () => {
      clearInterval(timer)
      timers.delete(timer)
    })
    return timer
  }

  server.on('connection', (socket) => {
    const own = new Map<string, NodeJS.Timeout>()
    socket.on('message', async (data) => {
      const message = JSON.parse(String(data)) as Message
      if (message.method === 'eth_subscribe' && message.params?.[0] === 'newHeads') {
        const id = `0x${(own.size + 1).toString(16)}`
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: id }))
        own.set(id, subscribe(socket, id))
        return
      }
      if (message.method === 'eth_unsubscribe') {
        const id = String(message.params?.[0])
        clearInterval(own.get(id))
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: own.delete(id) }))
        return
      }
      socket.send(JSON.stringify(await post(httpUrl, message)))
    })
  })

  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    subscriptions: () => subscriptions,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer)
        for (const client of server.clients) client.terminate()
        server.close(() => resolve())
      }),
  }
}
