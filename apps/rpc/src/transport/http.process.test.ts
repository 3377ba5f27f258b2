import { connect } from 'node:net'
import { describeWithFixtures } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type RpcProcess, sleep, startLoad, startRpcProcess } from '../_test/rpcProcess.js'
import { mainnetBlocksFixture } from '../_test/seed.js'
import { createTestEnv, type TestEnv } from '../_test/server.js'

const call = '{"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockHashAndIndex","params":["0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b","0x0"]}'

/** Writes `head` then `body` on a raw socket and reads until the server closes (or `timeoutMs`). */
function rawExchange(port: number, head: string, body: Buffer | string, timeoutMs: number): Promise<{ text: string; error: string | undefined; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now()
    const socket = connect(port, '127.0.0.1')
    let text = ''
    let error: string | undefined
    const timer = setTimeout(() => socket.destroy(), timeoutMs)
    socket.on('data', (chunk) => (text += chunk.toString('latin1')))
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message))
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ text, error, ms: Date.now() - started })
    })
    // Note: everything is written before anything is read, as Python's http.client does.
    socket.write(head)
    socket.write(body)
  })
}

describeWithFixtures([mainnetBlocksFixture], 'uncle-rpc rpc over HTTP: bodies, timeouts, SIGTERM', () => {
  let env: TestEnv
  let rpc: RpcProcess

  beforeAll(async () => {
    env = await createTestEnv()
    rpc = await startRpcProcess(env.database.url, ['--rate-limits', 'off', '--request-timeout-ms', '1000'])
  })
  afterAll(async () => {
    await rpc?.cli.stop('SIGKILL')
    await env?.close()
  })

  test('error: a 6 MB body sent whole before reading gets the 413 (fetch and a raw socket), not a reset', async () => {
    const big = Buffer.alloc(6 * 1024 * 1024, 0x20)
    const res = await fetch(`${rpc.base}/v3/${env.key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big })
    expect(res.status).toBe(413)
    expect(await res.text()).toContain('request body too large')
    const head = `POST /v3/${env.key} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n`
    const raw = await rawExchange(rpc.port, head, big, 10_000)
    expect(raw.error).toBeUndefined()
    expect(raw.text).toMatch(/^HTTP\/1\.1 413 /)
    expect(raw.text).toContain('request body too large')
  }, 20_000)

  test('error: a chunked body that never ends is answered 408 after --request-timeout-ms', async () => {
    const head = `POST /v3/${env.key} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`
    const raw = await rawExchange(rpc.port, head, '5\r\n[{"js\r\n', 10_000)
    expect(raw.text).toMatch(/^HTTP\/1\.1 408 /)
    expect(raw.ms).toBeLessThan(4000)
  }, 20_000)

  test('behavior: SIGTERM answers every request in flight on keep-alive connections, then exits 0', async () => {
    const load = startLoad(`${rpc.base}/v3/${env.key}`, call, { concurrency: 16 })
    await sleep(800)
    const before = load.now().answered
    const exited = rpc.cli.stop('SIGTERM')
    expect(await exited).toBe(0)
    const result = await load.stop()
    expect(result.answered).toBeGreaterThan(before)
    // Once the listening socket is closed new connections are refused; nothing sent on an open one is lost.
    const lost = [...result.errors].filter(([code]) => code !== 'ECONNREFUSED')
    expect(lost).toEqual([])
    expect(result.statuses.get(200)).toBe(result.answered)
    expect(result.answered + (result.errors.get('ECONNREFUSED') ?? 0)).toBe(result.answered + result.failed)
  }, 20_000)
})
