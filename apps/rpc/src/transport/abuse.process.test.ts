import { readFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { haveFixtures } from '@uncle-rpc/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { type RpcProcess, rssMb, sleep, startRpcProcess } from '../_test/rpcProcess.js'
import { mainnetBlocksFixture } from '../_test/seed.js'
import { createTestEnv, type TestEnv } from '../_test/server.js'

// The wire under abuse, against real `uncle-rpc rpc` processes: the one serving (fast path and
// frame reader on) and, as the reference, one with `--fast-path off` (node:http and ws alone).
// Each test asserts the mechanism (closed, answered at the head, nothing held); the figures are
// measured by bench/abuse.ts.

/** A raw client socket: what it received and when the server closed it. */
type Raw = { socket: Socket; text: () => string; answered: Promise<number>; closed: Promise<number> }

function rawSocket(port: number): Raw {
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

const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> => Promise.race([promise, sleep(ms).then(() => 'timeout' as const)])

/** The server's sockets on `port` in CLOSE-WAIT (the client sent FIN, the server has not closed), from /proc/net/tcp. */
function closeWaitOn(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => {
      const fields = line.trim().split(/\s+/)
      return fields[1]?.endsWith(`:${hexPort}`) === true && fields[3] === '08'
    }).length
}

/** The CPU time (user + system, ms) a process has used so far. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

const head = (key: string, length: number, extra = '') =>
  `POST /v3/${key} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}Content-Length: ${length}\r\n\r\n`

describe.runIf(haveFixtures(mainnetBlocksFixture))('uncle-rpc rpc under abuse: the fast path and the frame reader give what node:http and ws give', () => {
  let env: TestEnv
  let rpc: RpcProcess
  let reference: RpcProcess
  let shortTimeout: RpcProcess

  beforeAll(async () => {
    env = await createTestEnv()
    const common = ['--rate-limits', 'off', '--null-filter', 'off']
    // Note: one at a time (three starting at once on a loaded machine can outlast the start timeout).
    rpc = await startRpcProcess(env.database.url, common)
    reference = await startRpcProcess(env.database.url, [...common, '--fast-path', 'off'])
    shortTimeout = await startRpcProcess(env.database.url, [...common, '--request-timeout-ms', '5000'])
  })
  afterAll(async () => {
    await Promise.all([rpc, reference, shortTimeout].map((p) => p?.cli.stop('SIGKILL')))
    await env?.close()
  })

  test('behavior: a client that floods pings and never reads is cut (ws bounds the pongs waiting: 60), and the server holds nothing', async () => {
    const url = `ws://127.0.0.1:${rpc.port}/ws/v3/${env.key}`
    const before = rssMb(rpc.pid)
    const socket = new WebSocket(url)
    await new Promise((resolve) => socket.once('open', resolve))
    const raw = (socket as unknown as { _socket: Socket })._socket
    raw.pause()
    const closed = new Promise<number>((resolve) => raw.once('close', () => resolve(Date.now())))
    // Masked (all-zero mask) pings of 125 bytes, 1 MB at a time, 60 MB in all while the socket is open.
    const ping = Buffer.concat([Buffer.from([0x89, 0x80 | 125, 0, 0, 0, 0]), Buffer.alloc(125, 0x61)])
    const megabyte = Buffer.concat(Array.from({ length: 8000 }, () => ping))
    const started = Date.now()
    let sent = 0
    for (let i = 0; i < 60 && !raw.destroyed; i++) {
      raw.write(megabyte)
      sent += megabyte.length
      if (raw.writableNeedDrain) await within(new Promise((resolve) => raw.once('drain', resolve)), 200)
    }
    const at = await within(closed, 20_000)
    const growth = rssMb(rpc.pid) - before
    process.stdout.write(`ping flood: ${(sent / 1e6).toFixed(0)} MB sent, closed after ${at === 'timeout' ? 'never' : `${at - started} ms`}, RSS +${growth.toFixed(0)} MB\n`)
    expect(at).not.toBe('timeout')
    expect((at as number) - started).toBeLessThan(10_000)
    expect(growth).toBeLessThan(60)
    // A client that reads gets its pongs: the bound is on pongs the client does not take.
    const reader = new WebSocket(url)
    await new Promise((resolve) => reader.once('open', resolve))
    let pongs = 0
    reader.on('pong', () => pongs++)
    for (let i = 0; i < 20; i++) reader.ping('x')
    await within(
      new Promise<void>((resolve) => {
        const poll = setInterval(() => pongs === 20 && (clearInterval(poll), resolve()), 20)
      }),
      5000,
    )
    expect(pongs).toBe(20)
    reader.close()
  }, 60_000)

  test('behavior: 40 connections sending 5 MiB bodies with an unknown key each get 401 at the head, with Connection: close, as from node:http', async () => {
    const length = 5 * 1024 * 1024
    const first = Buffer.alloc(64 * 1024, 0x20)
    for (const server of [reference, rpc]) {
      const clients = Array.from({ length: 40 }, () => rawSocket(server.port))
      for (const c of clients) c.socket.write(head('not-a-key', length) + first.toString('latin1'))
      // Only the head and 64 KiB of each body were sent: the answers come without the rest.
      const answered = await Promise.all(clients.map((c) => within(c.answered, 10_000)))
      expect(answered.filter((a) => a === 'timeout')).toEqual([])
      for (const c of clients) expect(c.text()).toMatch(/^HTTP\/1\.1 401 /)
      for (const c of clients) c.socket.destroy()
    }
    // The fast path's refusal ends the connection once the declared body was read and dropped.
    const c = rawSocket(rpc.port)
    c.socket.write(head('not-a-key', length) + first.toString('latin1'))
    await c.answered
    expect(c.text()).toMatch(/^HTTP\/1\.1 401 [^]*\r\nconnection: close\r\n/i)
    expect(c.text()).toContain('invalid project id')
    c.socket.write(Buffer.alloc(length - first.length, 0x20))
    expect(await within(c.closed, 10_000)).not.toBe('timeout')
  }, 60_000)

  test('behavior: a body trickled a byte at a time costs the server about what it costs node:http (no copy of the body per read)', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'
    const length = 5 * 1024 * 1024 - 1024
    const padded = body + ' '.repeat(length - body.length)
    const writes = 1000
    const perWrite: number[] = []
    for (const server of [reference, rpc]) {
      const c = rawSocket(server.port)
      c.socket.write(head(env.key, length) + padded.slice(0, length - writes))
      await sleep(500)
      const cpuBefore = cpuMs(server.pid)
      for (let i = length - writes; i < length; i++) {
        c.socket.write(padded[i]!)
        // Note: a pause between writes, so each arrives as a read of its own.
        await sleep(1)
      }
      const status = await within(c.answered, 20_000)
      expect(status).not.toBe('timeout')
      await sleep(200)
      expect(c.text()).toMatch(/^HTTP\/1\.1 200 /)
      perWrite.push((cpuMs(server.pid) - cpuBefore) / writes)
      c.socket.destroy()
    }
    const [nodeMs, fastMs] = perWrite as [number, number]
    process.stdout.write(`body trickle: server CPU per 1-byte write ${fastMs.toFixed(3)} ms (node:http alone ${nodeMs.toFixed(3)} ms)\n`)
    expect(fastMs).toBeLessThan(Math.max(3 * nodeMs, 0.1))
  }, 60_000)

  test('behavior: a client that ends its side (FIN) mid-request gets 400 at once, as from node:http; after a whole request, its answer, then the close', async () => {
    for (const server of [reference, rpc]) {
      const partial = rawSocket(server.port)
      partial.socket.end(`POST /v3/${env.key} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n`)
      expect(await within(partial.closed, 3000)).not.toBe('timeout')
      expect(partial.text()).toMatch(/^HTTP\/1\.1 400 /)
      const partBody = rawSocket(server.port)
      partBody.socket.end(head(env.key, 100) + '{"jsonrpc"')
      expect(await within(partBody.closed, 3000)).not.toBe('timeout')
      const whole = rawSocket(server.port)
      const call = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'
      whole.socket.end(head(env.key, call.length) + call)
      expect(await within(whole.closed, 3000)).not.toBe('timeout')
      expect(whole.text()).toMatch(/^HTTP\/1\.1 200 [^]*"result":"0x/)
    }
    // 1,000 partial heads and FIN: none is left in CLOSE-WAIT on the server 2 s later.
    for (let batch = 0; batch < 10; batch++)
      await Promise.all(
        Array.from({ length: 100 }, () => {
          const c = rawSocket(rpc.port)
          c.socket.end(`POST /v3/${env.key} HTTP/1.1\r\nHost: 127.0.0.1\r\n`)
          return within(c.answered, 100)
        }),
      )
    await sleep(2000)
    expect(closeWaitOn(rpc.port)).toBe(0)
  }, 60_000)

  test('behavior: a head trickled on the fast path, then handed to node:http, gets its 408 by the deadline of its first byte', async () => {
    // --request-timeout-ms 5000: 4 s of trickled headers, then a chunked body (node:http's to read) that never comes.
    const c = rawSocket(shortTimeout.port)
    c.socket.write(`POST /v3/${env.key} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n`)
    for (let i = 0; i < 8; i++) {
      await sleep(500)
      c.socket.write(`X-Trickle-${i}: ${i}\r\n`)
    }
    c.socket.write('Transfer-Encoding: chunked\r\n\r\n5\r\n[{"js\r\n')
    const closed = await within(c.closed, 15_000)
    process.stdout.write(`handoff after 4 s of trickle, --request-timeout-ms 5000: closed after ${closed} ms\n`)
    expect(c.text()).toMatch(/^HTTP\/1\.1 408 /)
    expect(closed).not.toBe('timeout')
    expect(closed as number).toBeLessThan(5000 + 2000)
  }, 60_000)
})
