import { connect, createServer, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTcpProxy } from './tcpProxy.js'

describe('createTcpProxy', () => {
  let echo: Server
  let port: number

  beforeAll(async () => {
    echo = createServer((socket) => socket.pipe(socket))
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
    port = (echo.address() as { port: number }).port
  })

  afterAll(async () => {
    await new Promise<void>((resolve) => echo.close(() => resolve()))
  })

  /** Sends `messages` one after another through `proxyPort`; resolves with what came back and the time to the last byte (ms). */
  async function roundTrip(proxyPort: number, messages: string[]): Promise<{ text: string; ms: number }> {
    const socket: Socket = connect(proxyPort, '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    const expected = messages.join('').length
    const started = performance.now()
    let text = ''
    const done = new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString()
        if (text.length >= expected) resolve()
      }),
    )
    for (const message of messages) socket.write(message)
    await done
    socket.destroy()
    return { text, ms: performance.now() - started }
  }

  test('behavior: delayMs adds latency in each direction and keeps the bytes in order', async () => {
    const proxy = await createTcpProxy({ host: '127.0.0.1', port }, { delayMs: 40 })
    try {
      const messages = Array.from({ length: 50 }, (_, i) => `${i},`)
      const { text, ms } = await roundTrip(proxy.port, messages)
      expect(text).toBe(messages.join(''))
      // There and back: at least twice the delay.
      expect(ms).toBeGreaterThanOrEqual(79)
      proxy.delayMs = 0
      expect((await roundTrip(proxy.port, ['again'])).text).toBe('again')
    } finally {
      await proxy.close()
    }
  })
})
