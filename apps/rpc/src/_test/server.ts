import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { createLogger } from '@uncle-rpc/config'
import { createDb, type Db } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import WebSocket from 'ws'
import type { RpcLimits } from '../transport/limits.js'
import { createRpcServer, type RpcServer } from '../server.js'
import { seedMainnetUncles } from './seed.js'

// Test-only: a real server on a loopback port over a fresh, seeded database.

export type TestEnv = {
  database: TestDatabase
  db: Db
  /** A valid `team` key (batches up to 1,000; no rate limits unless the server is given a limiter). */
  key: string
  close: () => Promise<void>
}

/** A fresh database with the 1,410 mainnet uncles (network `mainnet`) and one API key. */
export async function createTestEnv(): Promise<TestEnv> {
  const database = await createTestDatabase()
  const { db, close } = createDb({ url: database.url, max: 4 })
  await seedMainnetUncles(db)
  const { key } = await createApiKey(db, { plan: 'team', label: 'tests' })
  return {
    database,
    db,
    key,
    close: async () => {
      await close()
      await database.drop()
    },
  }
}

export type TestServer = { rpc: RpcServer; base: string; wsBase: string; port: number }

export type StartTestServerOptions = {
  cacheEntries?: number
  confirmations?: number
  limits?: Partial<RpcLimits>
  /** The fast path's requests per event-loop turn (default the server's). */
  requestsPerTurn?: number
  networks?: { name: string; confirmations: number; chainId?: number; hosts?: string[] }[]
  /** false: every request through node:http, not the fast path. */
  fastPath?: boolean
}

/** Starts the RPC server on 127.0.0.1:0 over `db`; logs go nowhere below `fatal`. */
export async function startTestServer(db: Db, options: StartTestServerOptions = {}): Promise<TestServer> {
  const logger = createLogger({ level: 'fatal', name: 'rpc-test' })
  const rpc = createRpcServer(
    { db, logger },
    {
      networks: options.networks ?? [{ name: 'mainnet', chainId: 1, confirmations: options.confirmations ?? 0 }],
      cacheEntries: options.cacheEntries,
      requestsPerTurn: options.requestsPerTurn,
      fastPath: options.fastPath,
      limits: options.limits,
      // Note: these tests are about answers, not the index-unavailable deadline (failover tests
      // set their own); a loaded CI machine may take longer than 250 ms for a cold batch.
      dbDeadlineMs: 5000,
      // Note: nor about shedding (overload.process.test.ts tests it): on a loaded CI machine the
      // event loop can lag past 500 ms and a request these tests send would get a 503.
      maxEventLoopLagMs: 0,
    },
  )
  const { port } = await rpc.listen(0, '127.0.0.1')
  return { rpc, port, base: `http://127.0.0.1:${port}`, wsBase: `ws://127.0.0.1:${port}` }
}

export type RawResponse = { status: number; headers: IncomingHttpHeaders; body: string }

/** A raw HTTP request (node:http, so headers and bodies are exactly what the test says). */
export function rawRequest(
  url: string,
  { method = 'POST', headers = { 'content-type': 'application/json' }, body }: { method?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** POST a JSON-RPC text with fetch; status and body text. */
export async function post(url: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  return { status: res.status, body: await res.text() }
}

/** A WebSocket that answers `send(text)` with the next message (one request in flight at a time). */
export type WsClient = { send(text: string | Uint8Array): Promise<string>; socket: WebSocket; close(): Promise<void> }

/** Opens a WebSocket; rejects with the HTTP status if the upgrade is refused. */
export function openWs(url: string, options: { headers?: Record<string, string> } = {}): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: options.headers ?? {} })
    const queue: ((text: string) => void)[] = []
    // Note: answers are text frames; a binary one is marked so that no comparison of its text passes.
    socket.on('message', (data, isBinary) => queue.shift()?.(`${isBinary ? '(binary frame) ' : ''}${data.toString()}`))
    socket.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body: Buffer.concat(chunks).toString() })))
    })
    socket.once('error', reject)
    socket.once('open', () =>
      resolve({
        socket,
        send: (text) =>
          new Promise((answer) => {
            queue.push(answer)
            socket.send(text)
          }),
        close: () =>
          new Promise((done) => {
            if (socket.readyState === WebSocket.CLOSED) return done()
            socket.once('close', () => done())
            socket.close()
          }),
      }),
    )
  })
}
