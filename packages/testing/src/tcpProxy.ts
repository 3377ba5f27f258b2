import { connect, createServer, type Server, type Socket } from 'node:net'

// Test-only: a TCP proxy in front of a real service (Postgres, Redis, a partner node, a node's
// WebSocket), so a test can make that service unavailable, or far away, to the code under test
// without touching the service itself.

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
  /** Latency added in each direction (ms): every chunk is passed on this long after it arrived, in order. */
  delayMs: number
  /**
   * Sends new connections to `to` and destroys the open ones, as a virtual IP moved to another
   * server or HAProxy with `on-marked-down shutdown-sessions` does at a failover. With
   * `keepOpen`, the open ones stay on the old server (a hung one keeps them hung): a switch that
   * cuts no session, as a DNS name or a proxy without shutdown-sessions moved away from a hung primary.
   */
  retarget(to: { host: string; port: number }, options?: { keepOpen?: boolean }): void
  close(): Promise<void>
}

export type TcpProxyOptions = {
  /** Latency added in each direction (ms), as a database in another zone has; default 0. Changeable later (`proxy.delayMs`). */
  delayMs?: number
}

/**
 * Writes chunks to `to` `delayMs()` after each was handed over, in order (one timer per direction,
 * not one per chunk). Note: a delay, not a bandwidth limit: chunks arriving together leave together.
 */
function delayedWriter(to: Socket, delayMs: () => number): (chunk: Buffer) => void {
  const queue: { at: number; chunk: Buffer }[] = []
  let timer: NodeJS.Timeout | undefined
  const drain = () => {
    timer = undefined
    const now = performance.now()
    while (queue.length > 0 && queue[0]!.at <= now) {
      const { chunk } = queue.shift()!
      if (!to.destroyed) to.write(chunk)
    }
    if (queue.length > 0) timer = setTimeout(drain, queue[0]!.at - now)
  }
  return (chunk) => {
    const delay = delayMs()
    if (delay <= 0 && queue.length === 0) {
      to.write(chunk)
      return
    }
    queue.push({ at: performance.now() + delay, chunk })
    timer ??= setTimeout(drain, delay)
  }
}

/** Starts a proxy on 127.0.0.1 (a free port) to `target`. */
export async function createTcpProxy(target: { host: string; port: number }, options: TcpProxyOptions = {}): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let current = target
  let mode: TcpProxy['mode'] = 'open'
  let port = 0
  let delayMs = options.delayMs ?? 0
  const delay = () => delayMs

  const server: Server = createServer((client) => {
    sockets.add(client)
    client.on('close', () => sockets.delete(client))
    client.on('error', () => client.destroy())
    // Note: a hung proxy accepts the connection and then says nothing, as a stalled server does.
    if (mode === 'hung') return
    const upstream = connect(current.port, current.host)
    sockets.add(upstream)
    upstream.on('close', () => {
      sockets.delete(upstream)
      client.destroy()
    })
    upstream.on('error', () => upstream.destroy())
    client.on('close', () => upstream.destroy())
    const toUpstream = delayedWriter(upstream, delay)
    const toClient = delayedWriter(client, delay)
    client.on('data', (chunk: Buffer) => {
      if (mode === 'open') toUpstream(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (mode === 'open') toClient(chunk)
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
    get delayMs() {
      return delayMs
    },
    set delayMs(ms: number) {
      delayMs = ms
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
    retarget(to, { keepOpen = false } = {}) {
      current = to
      if (!keepOpen) destroyAll()
    },
    async close() {
      destroyAll()
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
