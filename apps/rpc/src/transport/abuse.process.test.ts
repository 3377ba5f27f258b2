import { describeWithFixtures } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import WebSocket from 'ws'
import { partialHeadsThenFin, pingFlood, postHead, rawClient, refusedBodies, sentOrClosed, trickledBody, trickleThenHandOff, within } from '../_test/abuse.js'
import { closeWaitOn, type RpcProcess, rssMb, sleep, startRpcProcess, withPeakRss } from '../_test/rpcProcess.js'
import { mainnetBlocksFixture } from '../_test/seed.js'
import { createTestEnv, type TestEnv } from '../_test/server.js'

// The wire under abuse, against real `uncle-rpc rpc` processes: the one serving (fast path and
// frame reader on) and, as the reference, one with `--fast-path off` (node:http and ws alone).
// Each test asserts the mechanism (closed, answered at the head, nothing held), with generous
// bounds on figures; bench/abuse.ts measures the figures.

describeWithFixtures([mainnetBlocksFixture], 'uncle-rpc rpc under abuse: the fast path and the frame reader give what node:http and ws give', () => {
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
    const { sentMb, closedMs } = await pingFlood(url, 60, 20_000)
    const growth = rssMb(rpc.pid) - before
    process.stdout.write(`ping flood: ${sentMb.toFixed(0)} MB sent, closed after ${closedMs ?? 'never'} ms, RSS +${growth.toFixed(0)} MB\n`)
    expect(closedMs).toBeDefined()
    expect(closedMs).toBeLessThan(10_000)
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

  test('behavior: 40 connections sending 5 MiB bodies with an unknown key each get 401 at the head, as from node:http; the fast path then drops the body and closes', async () => {
    const length = 5 * 1024 * 1024
    for (const server of [reference, rpc]) {
      // Only the head and 64 KiB of each body are sent: the answers come without the rest.
      const { clients, answeredMs } = await refusedBodies(server.port, 40, length, 64 * 1024, 10_000)
      expect(answeredMs.filter((ms) => ms === undefined)).toEqual([])
      for (const c of clients) expect(c.text()).toMatch(/^HTTP\/1\.1 401 /)
      for (const c of clients) c.socket.destroy()
    }
    const {
      clients: [c],
    } = await refusedBodies(rpc.port, 1, length, 64 * 1024, 10_000)
    expect(c!.text()).toMatch(/^HTTP\/1\.1 401 [^]*\r\nconnection: close\r\n/i)
    expect(c!.text()).toContain('invalid project id')
    c!.socket.write(Buffer.alloc(length - 64 * 1024, 0x20))
    expect(await within(c!.closed, 10_000)).toBeDefined()
  }, 60_000)

  test('behavior: 40 connections sending whole 5 MiB bodies with an unknown key: each gets its 401, and the fast path reads at most 64 KiB of each past the head, so the RSS stays (node:http alone reads and drops every byte: ~50 MB of garbage)', async () => {
    const length = 5 * 1024 * 1024
    const [{ clients, answeredMs }, growth] = await withPeakRss(rpc.pid, async () => {
      const sent = await refusedBodies(rpc.port, 40, length, length, 10_000)
      await sentOrClosed(sent.clients, 15_000)
      return sent
    })
    process.stdout.write(`40 × 5 MiB with an unknown key: RSS peak +${growth.toFixed(0)} MB\n`)
    expect(answeredMs.filter((ms) => ms === undefined)).toEqual([])
    for (const c of clients) expect(c.text()).toMatch(/^HTTP\/1\.1 401 /)
    // Each was cut (the server stopped reading it) within the 5 s of the discard and a margin.
    expect((await Promise.all(clients.map((c) => within(c.closed, 10_000)))).filter((ms) => ms === undefined)).toEqual([])
    expect(growth).toBeLessThan(30)
  }, 60_000)

  test('behavior: a body trickled a byte at a time costs the server about what it costs node:http (no copy of the body per read)', async () => {
    const length = 5 * 1024 * 1024 - 1024
    const node = await trickledBody(reference.port, reference.pid, env.key, length, 1000)
    const fast = await trickledBody(rpc.port, rpc.pid, env.key, length, 1000)
    process.stdout.write(`body trickle: server CPU per 1-byte write ${fast.cpuPerWriteMs.toFixed(3)} ms (node:http alone ${node.cpuPerWriteMs.toFixed(3)} ms)\n`)
    expect([node.status, fast.status]).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK'])
    expect(fast.cpuPerWriteMs).toBeLessThan(Math.max(3 * node.cpuPerWriteMs, 0.1))
  }, 60_000)

  test('behavior: a client that ends its side (FIN) mid-request gets 400 at once, as from node:http; after a whole request, its answer, then the close', async () => {
    const call = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'
    for (const server of [reference, rpc]) {
      const partial = rawClient(server.port)
      partial.socket.end(`POST /v3/${env.key} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n`)
      expect(await within(partial.closed, 3000)).toBeDefined()
      expect(partial.text()).toMatch(/^HTTP\/1\.1 400 /)
      const partBody = rawClient(server.port)
      partBody.socket.end(postHead(env.key, 100) + '{"jsonrpc"')
      expect(await within(partBody.closed, 3000)).toBeDefined()
      const whole = rawClient(server.port)
      whole.socket.end(postHead(env.key, call.length) + call)
      expect(await within(whole.closed, 3000)).toBeDefined()
      expect(whole.text()).toMatch(/^HTTP\/1\.1 200 [^]*"result":"0x/)
    }
    // 1,000 partial heads and FIN: none is left in CLOSE-WAIT on the server 2 s later.
    await partialHeadsThenFin(rpc.port, env.key, 1000)
    await sleep(2000)
    expect(closeWaitOn(rpc.port)).toBe(0)
  }, 60_000)

  test('behavior: a head trickled on the fast path, then handed to node:http, gets its 408 by the deadline of its first byte', async () => {
    // --request-timeout-ms 5000: 4 s of trickled headers, then a chunked body (node:http's to read) that never comes.
    const { closedMs, text } = await trickleThenHandOff(shortTimeout.port, env.key, 4000, 15_000)
    process.stdout.write(`handoff after 4 s of trickle, --request-timeout-ms 5000: closed after ${closedMs} ms\n`)
    expect(text).toMatch(/^HTTP\/1\.1 408 /)
    expect(closedMs).toBeDefined()
    expect(closedMs).toBeLessThan(5000 + 2000)
  }, 60_000)
})
