import type { Socket } from 'node:net'
import { describeWithFixtures } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import WebSocket from 'ws'
import { type RpcProcess, rssMb, sleep, startRpcProcess } from '../_test/rpcProcess.js'
import { derivedUncles, mainnetBlocksFixture } from '../_test/seed.js'
import { createTestEnv, openWs, type TestEnv } from '../_test/server.js'

describeWithFixtures([mainnetBlocksFixture], 'uncle-rpc rpc WebSocket backpressure', () => {
  let env: TestEnv
  let rpc: RpcProcess

  beforeAll(async () => {
    env = await createTestEnv()
    rpc = await startRpcProcess(env.database.url, ['--rate-limits', 'off', '--ws-stalled-close-ms', '2000'])
  })
  afterAll(async () => {
    await rpc?.cli.stop('SIGKILL')
    await env?.close()
  })

  test('behavior: a client that sends 300 batches of 1,000 calls and never reads is held, then closed with 1013; memory stays bounded', async () => {
    const uncles = derivedUncles()
    const calls = Array.from({ length: 1000 }, (_, i) => {
      const u = uncles[i % uncles.length]!
      return `{"jsonrpc":"2.0","id":${i},"method":"eth_getUncleByBlockHashAndIndex","params":["${u.blockHash}","${u.index}"]}`
    })
    const batch = `[${calls.join(',')}]`
    const url = `ws://127.0.0.1:${rpc.port}/ws/v3/${env.key}`
    // Warm the server (code paths, cache) so `before` is its working size.
    const warm = await openWs(url)
    for (let i = 0; i < 3; i++) await warm.send(batch)
    await warm.close()
    const before = rssMb(rpc.pid)

    const socket = new WebSocket(url)
    await new Promise((resolve) => socket.once('open', resolve))
    // The client never reads: its TCP receive window fills and the server's answers pile up there.
    ;(socket as unknown as { _socket: Socket })._socket.pause()
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)))
    for (let i = 0; i < 300; i++) socket.send(batch)
    let peak = before
    let stalled = false
    const closing = rpc.cli.waitFor(/"msg":"WebSocket closed: the client does not take its answers"/, 8000).then(() => (stalled = true))
    while (!stalled) await Promise.race([closing, sleep(100)]).then(() => (peak = Math.max(peak, rssMb(rpc.pid))))
    // Now the client reads again: it takes the answers queued before the close frame, then the
    // frame itself, which the server drops the socket without a second after sending.
    ;(socket as unknown as { _socket: Socket })._socket.resume()
    expect(await closed).toBe(1013)
    await sleep(1500)
    const after = rssMb(rpc.pid)
    process.stdout.write(`ws backpressure: server RSS before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, after ${after.toFixed(0)} MB\n`)
    expect(peak - before).toBeLessThan(150)
    expect(after - before).toBeLessThan(100)
    // A client that reads gets every answer, even with far more sent at once than the bounds hold.
    const reader = await openWs(url)
    const answers = await Promise.all(Array.from({ length: 60 }, () => reader.send(batch)))
    expect(answers.every((a) => a.startsWith('[{"jsonrpc":"2.0","id":0,"result":{'))).toBe(true)
    await reader.close()
  }, 30_000)
})
