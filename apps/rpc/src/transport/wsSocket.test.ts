import type { EventEmitter } from 'node:events'
import { connect, createServer, type Socket } from 'node:net'
import { afterEach, expect, test } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import { createFrameBatch, readPlainFrames } from './wsSocket.js'

// The frame batch on a real loopback socket whose peer never reads, and the control frames read beneath ws.

const sockets: Socket[] = []
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy()
})

/** A connected pair on loopback: `server` writes, `client` never reads. */
async function unreadPair(): Promise<Socket> {
  const listening = createServer()
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve))
  const accepted = new Promise<Socket>((resolve) => listening.once('connection', resolve))
  const client = connect((listening.address() as { port: number }).port, '127.0.0.1')
  client.pause()
  const server = await accepted
  listening.close()
  sockets.push(client, server)
  return server
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

test('behavior: frames queued behind writes the kernel has not taken hold their own bytes, not a batch buffer each', async () => {
  const socket = await unreadPair()
  const frames = createFrameBatch({ _socket: socket } as unknown as WebSocket)
  // Fill the kernel's buffers until the socket's own queue holds bytes.
  const filler = Buffer.alloc(1024 * 1024, 120)
  while (socket.writableLength === 0) {
    socket.write(filler)
    await turn()
  }
  const queuedBefore = socket.writableLength
  // 200 turns, each with one small answer: each leaves in a write of its own and waits in the queue.
  for (let i = 0; i < 200; i++) {
    frames.write(`{"jsonrpc":"2.0","id":${i},"result":"0x1"}`)
    await turn()
  }
  expect(socket.writableLength - queuedBefore).toBeGreaterThanOrEqual(200 * 40)
  // The memory those queued writes hold: each distinct ArrayBuffer behind them, counted once.
  // Note: node's writable streams list their queued writes as `writableBuffer`, which @types/node does not declare.
  const queued = (socket as unknown as { writableBuffer: { chunk: Buffer }[] }).writableBuffer
  const held = new Set(queued.map((entry) => entry.chunk.buffer))
  held.delete(filler.buffer)
  const bytesHeld = [...held].reduce((sum, buffer) => sum + buffer.byteLength, 0)
  expect(bytesHeld).toBeLessThan(200 * 1024)
})

test('behavior: a ping read beneath ws reaches ws as bytes of its own, not a view of the read it came in', async () => {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  await new Promise((resolve) => server.once('listening', resolve))
  const pinged = new Promise<Buffer>((resolve) =>
    server.once('connection', (ws) => {
      readPlainFrames(ws, 1024 * 1024, () => undefined, () => undefined, () => undefined)
      ;(ws as unknown as { _receiver: EventEmitter })._receiver.prependListener('ping', resolve)
    }),
  )
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as { port: number }).port}`)
  await new Promise((resolve) => client.once('open', resolve))
  // Note: corked, so the ping arrives in one read behind a 20 KB message.
  const raw = (client as unknown as { _socket: Socket })._socket
  raw.cork()
  client.send('x'.repeat(20 * 1024))
  client.ping('are you there')
  raw.uncork()
  const payload = await pinged
  expect(payload.toString()).toBe('are you there')
  expect(payload.buffer.byteLength).toBe(payload.length)
  client.terminate()
  await new Promise((resolve) => server.close(resolve))
})
