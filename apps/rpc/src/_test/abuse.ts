import { connect, type Socket } from 'node:net'
import WebSocket from 'ws'
import { cpuMs, sleep } from './rpcProcess.js'

// Test-only: the wire abused as an attacker would, with raw sockets, against a server on loopback.
// Each attack returns what it saw; the abuse tests assert on it and bench/abuse.ts prints it.

/** A raw client socket: what it received, when the first bytes came and when the server closed it (ms after connecting). */
export type RawClient = { socket: Socket; text: () => string; answered: Promise<number>; closed: Promise<number> }

export function rawClient(port: number): RawClient {
  const started = Date.now()
  const socket = connect(port, '127.0.0.1')
  socket.setNoDelay(true)
  let text = ''
  let answered!: (ms: number) => void
  socket.on('data', (chunk) => {
    if (text === '') answered(Date.now() - started)
    text += chunk.toString('latin1')
  })
  socket.on('error', () => undefined)
  return {
    socket,
    text: () => text,
    answered: new Promise((resolve) => (answered = resolve)),
    closed: new Promise((resolve) => socket.once('close', () => resolve(Date.now() - started))),
  }
}

/** `promise`'s value, or undefined when it takes longer than `ms`. */
export const within = <T>(promise: Promise<T>, ms: number): Promise<T | undefined> => Promise.race([promise, sleep(ms).then(() => undefined)])

/** A JSON-RPC POST head to `/v3/<key>` declaring `length` bytes of body. */
export const postHead = (key: string, length: number, extra = '') =>
  `POST /v3/${key} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}Content-Length: ${length}\r\n\r\n`

/**
 * Opens a WebSocket, stops reading it, and writes `megabytes` MB of masked 125-byte pings while
 * the server keeps it open: how much went out and when (ms) the server closed it, if it did within `waitMs`.
 */
export async function pingFlood(url: string, megabytes: number, waitMs: number): Promise<{ sentMb: number; closedMs: number | undefined }> {
  const ws = new WebSocket(url)
  await new Promise((resolve) => ws.once('open', resolve))
  const raw = (ws as unknown as { _socket: Socket })._socket
  raw.pause()
  const started = Date.now()
  const closed = new Promise<number>((resolve) => raw.once('close', () => resolve(Date.now() - started)))
  const ping = Buffer.concat([Buffer.from([0x89, 0x80 | 125, 0, 0, 0, 0]), Buffer.alloc(125, 0x61)])
  const megabyte = Buffer.concat(Array.from({ length: 8000 }, () => ping))
  let sent = 0
  for (let i = 0; i < megabytes && !raw.destroyed; i++) {
    raw.write(megabyte)
    sent += megabyte.length
    if (raw.writableNeedDrain) await within(new Promise((resolve) => raw.once('drain', resolve)), 200)
  }
  const closedMs = await within(closed, waitMs)
  raw.destroy()
  return { sentMb: sent / 1e6, closedMs }
}

/**
 * `connections` POSTs with an unknown key, each declaring `length` bytes and sending `send` of
 * them at once: when each got its first answer bytes (undefined: none within `waitMs`) and its status line.
 */
export async function refusedBodies(port: number, connections: number, length: number, send: number, waitMs: number): Promise<{ clients: RawClient[]; answeredMs: (number | undefined)[] }> {
  const clients = Array.from({ length: connections }, () => rawClient(port))
  const body = Buffer.alloc(send, 0x20)
  for (const c of clients) {
    c.socket.write(postHead('not-a-key', length))
    c.socket.write(body)
  }
  const answeredMs = await Promise.all(clients.map((c) => within(c.answered, waitMs)))
  return { clients, answeredMs }
}

/** Resolves once each client has handed its last byte to the kernel or was closed, or after `waitMs`. */
export async function sentOrClosed(clients: readonly RawClient[], waitMs: number): Promise<void> {
  const until = Date.now() + waitMs
  while (Date.now() < until && clients.some((c) => !c.socket.destroyed && c.socket.writableLength > 0)) await sleep(50)
}

/**
 * A POST of `length` bytes (eth_chainId padded with spaces) sent whole but for its last `writes`
 * bytes, which follow one per write, 1 ms apart: the server's CPU time per such write (ms, from
 * /proc: 10 ms ticks), how long (ms) that CPU time was taken over, and the answer's first line.
 */
export async function trickledBody(
  port: number,
  pid: number,
  key: string,
  length: number,
  writes: number,
): Promise<{ cpuPerWriteMs: number; windowMs: number; status: string }> {
  const call = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'
  const padded = call + ' '.repeat(length - call.length)
  const c = rawClient(port)
  c.socket.write(postHead(key, length) + padded.slice(0, length - writes))
  await sleep(500)
  const before = cpuMs(pid)
  const started = Date.now()
  for (let i = length - writes; i < length; i++) {
    c.socket.write(padded[i]!)
    // Note: a pause between writes, so each arrives as a read of its own.
    await sleep(1)
  }
  await within(c.answered, 20_000)
  await sleep(200)
  const cpuPerWriteMs = (cpuMs(pid) - before) / writes
  const windowMs = Date.now() - started
  c.socket.destroy()
  return { cpuPerWriteMs, windowMs, status: c.text().split('\r\n')[0] ?? '' }
}

/** `count` clients that each send a partial head and FIN, 100 at a time. */
export async function partialHeadsThenFin(port: number, key: string, count: number): Promise<void> {
  for (let done = 0; done < count; done += 100)
    await Promise.all(
      Array.from({ length: Math.min(100, count - done) }, () => {
        const c = rawClient(port)
        c.socket.end(`POST /v3/${key} HTTP/1.1\r\nHost: 127.0.0.1\r\n`)
        return within(c.answered, 100)
      }),
    )
}

/**
 * A head trickled for `trickleMs` (a header line every 500 ms) that the fast path reads, then
 * `Transfer-Encoding: chunked`, which it hands to node:http, and a body that never ends: when
 * (ms after connecting) the server closed it, and what it said.
 */
export async function trickleThenHandOff(port: number, key: string, trickleMs: number, waitMs: number): Promise<{ closedMs: number | undefined; text: string }> {
  const c = rawClient(port)
  c.socket.write(`POST /v3/${key} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n`)
  for (let i = 0; i < trickleMs / 500; i++) {
    await sleep(500)
    c.socket.write(`X-Trickle-${i}: ${i}\r\n`)
  }
  c.socket.write('Transfer-Encoding: chunked\r\n\r\n5\r\n[{"js\r\n')
  const closedMs = await within(c.closed, waitMs)
  c.socket.destroy()
  return { closedMs, text: c.text() }
}
