import { createApiKey, hashSecret, revokeApiKey } from '@uncle-rpc/db/accounts'
import { describeWithFixtures } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type WebSocket from 'ws'
import { derivedUncles, expectedResultJson, mainnetBlocksFixture } from '../_test/seed.js'
import { createTestEnv, openWs, post, startTestServer, type TestEnv, type TestServer } from '../_test/server.js'

const unknownHash = `0x${'ab'.repeat(32)}`
const call = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"eth_getUncleByBlockHashAndIndex","params":["${unknownHash}","0x0"]}`

const refusal = (url: string) => openWs(url).then(() => 'opened', (error: { status?: number; body?: string }) => error)
const closed = (socket: WebSocket) =>
  new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })))

describeWithFixtures([mainnetBlocksFixture], 'WebSocket', () => {
  let env: TestEnv
  let server: TestServer
  let short: TestServer

  beforeAll(async () => {
    env = await createTestEnv()
    server = await startTestServer(env.db, { limits: { maxWsMessageBytes: 4096, maxWsConnectionsPerKey: 2, maxBatchSize: 3 } })
    short = await startTestServer(env.db, { limits: { wsIdleTimeoutMs: 400, wsPingIntervalMs: 100 } })
  })

  afterAll(async () => {
    await server?.rpc.close()
    await short?.rpc.close()
    await env?.close()
  })

  test('default: requests, batches, notifications and errors over one socket', async () => {
    const ws = await openWs(`${server.wsBase}/ws/v3/${env.key}`)
    expect(await ws.send(call('1'))).toBe('{"jsonrpc":"2.0","id":1,"result":null}')
    // A notification gets no message: the next answer is the next call's.
    ws.socket.send('{"jsonrpc":"2.0","method":"eth_getUncleByBlockHashAndIndex","params":[]}')
    expect(await ws.send(`[${call('"a"')},${call('2')}]`)).toBe(
      '[{"jsonrpc":"2.0","id":"a","result":null},{"jsonrpc":"2.0","id":2,"result":null}]',
    )
    expect(await ws.send('{oops')).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}')
    expect(await ws.send('[]')).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}')
    expect(await ws.send(`[${call('1')},${call('2')},${call('3')},${call('4')}]`)).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large: at most 3 calls per batch"}}',
    )
    await ws.close()
  })

  test('error: bad or missing key, unknown network or path: the upgrade is refused before the handshake', async () => {
    const invalid = '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"invalid project id"}}'
    expect(await refusal(`${server.wsBase}/ws/v3/${'0'.repeat(32)}`)).toMatchObject({ status: 401, body: invalid })
    expect(await refusal(`${server.wsBase}/mainnet/ws/v3/nope`)).toMatchObject({ status: 401, body: invalid })
    expect(await refusal(`${server.wsBase}/ws/v3`)).toMatchObject({
      status: 401,
      body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"project id required in the url"}}',
    })
    expect(await refusal(`${server.wsBase}/goerli/ws/v3/${env.key}`)).toMatchObject({ status: 404 })
    expect(await refusal(`${server.wsBase}/v3/${env.key}`)).toMatchObject({ status: 404 })
  })

  test('error: a revoked key stops working once keys are reloaded', async () => {
    const { key } = await createApiKey(env.db, { plan: 'developer' })
    const ws = await openWs(`${server.wsBase}/ws/v3/${key}`)
    await ws.close()
    expect((await post(`${server.base}/v3/${key}`, call('1'))).status).toBe(200)
    await revokeApiKey(env.db, { keyHash: hashSecret(key) })
    await server.rpc.auth.refresh()
    expect(await refusal(`${server.wsBase}/ws/v3/${key}`)).toMatchObject({ status: 401 })
    expect((await post(`${server.base}/v3/${key}`, call('1'))).status).toBe(401)
  })

  test('error: more connections per key than allowed → 429 at the upgrade', async () => {
    const a = await openWs(`${server.wsBase}/ws/v3/${env.key}`)
    const b = await openWs(`${server.wsBase}/ws/v3/${env.key}`)
    expect(await refusal(`${server.wsBase}/ws/v3/${env.key}`)).toMatchObject({ status: 429 })
    await a.close()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const c = await openWs(`${server.wsBase}/ws/v3/${env.key}`)
    await Promise.all([b.close(), c.close()])
  })

  test('error: a message over the size limit closes the socket with 1009', async () => {
    const ws = await openWs(`${server.wsBase}/ws/v3/${env.key}`)
    const done = closed(ws.socket)
    ws.socket.send(`[${Array.from({ length: 100 }, (_, i) => call(String(i))).join(',')}]`)
    expect((await done).code).toBe(1009)
  })

  test('behavior: plain frames are read beneath ws; a ping is answered there; a fragmented message goes to ws for good, and invalid UTF-8 closes with 1007 as before', async () => {
    const ws = await openWs(`${server.wsBase}/ws/v3/${env.key}`)
    const before = server.rpc.wsPlainMessages()
    for (const id of ['1', '2', '"x"']) expect(await ws.send(call(id))).toBe(`{"jsonrpc":"2.0","id":${id},"result":null}`)
    const pong = new Promise<string>((resolve) => ws.socket.once('pong', (data: Buffer) => resolve(data.toString())))
    ws.socket.ping('are you there')
    expect(await pong).toBe('are you there')
    expect(await ws.send(call('3'))).toBe('{"jsonrpc":"2.0","id":3,"result":null}')
    expect(server.rpc.wsPlainMessages() - before).toBe(4)
    // A message in two fragments: ws reads it, and every frame after it.
    const text = call('4')
    const answer = new Promise<string>((resolve) => ws.socket.once('message', (data: Buffer) => resolve(data.toString())))
    ws.socket.send(text.slice(0, 10), { fin: false })
    ws.socket.send(text.slice(10), { fin: true })
    expect(await answer).toBe('{"jsonrpc":"2.0","id":4,"result":null}')
    expect(await ws.send(call('5'))).toBe('{"jsonrpc":"2.0","id":5,"result":null}')
    expect(server.rpc.wsPlainMessages() - before).toBe(4)
    await ws.close()

    const broken = await openWs(`${server.wsBase}/ws/v3/${env.key}`)
    const done = closed(broken.socket)
    broken.socket.send(Buffer.from([0xc3, 0x28]), { binary: false })
    expect((await done).code).toBe(1007)
  })

  test('behavior: answers of a read leave before the close frame ws sends for a bad frame later in the same read', async () => {
    const uncle = derivedUncles()[0]!
    const known = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"eth_getUncleByBlockHashAndIndex","params":["${uncle.blockHash}","${uncle.index}"]}`
    const answer = (id: string) => `{"jsonrpc":"2.0","id":${id},"result":${expectedResultJson(uncle.result)}}`
    const ws = await openWs(`${server.wsBase}/ws/v3/${env.key}`)
    // Note: the first answer fills the cache, so the next is answered in the read that brings it.
    expect(await ws.send(known('6'))).toBe(answer('6'))
    const events: string[] = []
    ws.socket.on('message', (data: Buffer) => events.push(data.toString()))
    const done = closed(ws.socket)
    // Note: corked, so both frames reach the server in one read: a plain message, then invalid UTF-8 (ws closes with 1007).
    const raw = (ws.socket as unknown as { _socket: { cork(): void; uncork(): void } })._socket
    raw.cork()
    ws.socket.send(known('7'))
    ws.socket.send(Buffer.from([0xc3, 0x28]), { binary: false })
    raw.uncork()
    expect((await done).code).toBe(1007)
    expect(events).toEqual([answer('7')])
  })

  test('behavior: an idle socket is closed; one that stops answering pings is dropped', async () => {
    const idle = await openWs(`${short.wsBase}/ws/v3/${env.key}`)
    const started = Date.now()
    expect(await closed(idle.socket)).toEqual({ code: 1000, reason: 'idle timeout' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(300)

    const deaf = await openWs(`${short.wsBase}/ws/v3/${env.key}`)
    const socket = (deaf.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket
    // Note: a paused TCP socket reads nothing, so the client never sees a ping and never answers.
    socket.pause()
    await new Promise((resolve) => setTimeout(resolve, 300))
    const done = closed(deaf.socket)
    socket.resume()
    // Dropped by the server (no close frame) well before the 400 ms idle timeout.
    expect((await done).code).toBe(1006)
  })
})
