import { connect, createServer, type Server, type Socket } from 'node:net'

// Test-only: a TCP proxy in front of a real service (Postgres, Redis, a partner node, a node's
// WebSocket), so a test can make that service unavailable to the code under test without
// touching the service itself.

export type TcpProxy = {
  readonly port: number
  /** The proxy's mode: forwarding, cut (port closed, connections destroyed) or hung (connections held, nothing forwarded). */
  readonly mode: 'open' | 'cut' | 'hung'
  /** Closes the listening port and destroys every connection: clients get ECONNREFUSED / ECONNRESET. */
  cut(): Promise<void>
  /** Stops forwarding: existing and new connections stay open but nothing goes through (a stalled service). */
  hang(): void
  /** Forwards again (re-listening on the same port after a cut; held connections are destroyed). */
  restore(): Promise<void>
  close(): Promise<void>
}

/** Starts a proxy on 127.0.0.1 (a free port) to `target`. */
export async function createTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let mode: TcpProxy['mode'] = 'open'
  let port = 0

  const server: Server = createServer((client) => {
    sockets.add(client)
    client.on('close', () => sockets.delete(client))
    client.on('error', () => client.destroy())
    // Note: a hung proxy accepts the connection and then says nothing, as a stalled server does.
    if (mode === 'hung') return
    const upstream = connect(target.port, target.host)
    sockets.add(upstream)
    upstream.on('close', () => {
      sockets.delete(upstream)
      client.destroy()
    })
    upstream.on('error', () => upstream.destroy())
    client.on('close', () => upstream.destroy())
    client.on('data', (chunk) => {
      if (mode === 'open') upstream.write(chunk)
    })
    upstream.on('data', (chunk) => {
      if (mode === 'open') client.write(chunk)
    })
  })

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        port = (server.address() as { port: number }).port
        resolve()
      })
    })
  const destroyAll = () => {
    for (const socket of sockets) socket.destroy()
    sockets.clear()
  }
  await listen()

  return {
    get port() {
      return port
    },
    get mode() {
      return mode
    },
    async cut() {
      mode = 'cut'
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      destroyAll()
      await closed
    },
    hang() {
      mode = 'hung'
    },
    async restore() {
      const wasCut = mode === 'cut'
      if (mode === 'hung') destroyAll()
      mode = 'open'
      if (wasCut) await listen()
    },
    async close() {
      destroyAll()
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
