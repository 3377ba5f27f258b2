import { createServer } from 'node:net'
import { expect, test } from 'vitest'
import { listen } from './listen.js'

test('default: resolves with the bound address', async () => {
  const server = createServer()
  const address = await listen(server, { port: 0, host: '127.0.0.1', backlog: 16 })
  expect(address).toMatchObject({ address: '127.0.0.1', family: 'IPv4' })
  expect(address.port).toBeGreaterThan(0)
  server.close()
})

test('error: a port in use rejects with EADDRINUSE, and the server has no error listener left', async () => {
  const first = createServer()
  const { port } = await listen(first, { port: 0, host: '127.0.0.1' })
  const second = createServer()
  await expect(listen(second, { port, host: '127.0.0.1' })).rejects.toMatchObject({ code: 'EADDRINUSE' })
  expect(second.listenerCount('error')).toBe(0)
  first.close()
})
