import { connect } from 'node:net'
import { describeWithFixtures } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { mainnetBlocksFixture } from '../_test/seed.js'
import { createTestEnv, post, rawRequest, startTestServer, type TestEnv, type TestServer } from '../_test/server.js'

// The JSON-RPC corner cases of the contract and the HTTP errors, against a live server.

const H = '0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b'
const unknownHash = `0x${'ab'.repeat(32)}`
const call = (id: string, hash = unknownHash) =>
  `{"jsonrpc":"2.0","id":${id},"method":"eth_getUncleByBlockHashAndIndex","params":["${hash}","0x0"]}`
const nullAnswer = (id: string) => `{"jsonrpc":"2.0","id":${id},"result":null}`
const error = (id: string, code: number, message: string) =>
  `{"jsonrpc":"2.0","id":${id},"error":{"code":${code},"message":"${message}"}}`

describeWithFixtures([mainnetBlocksFixture], 'protocol', () => {
  let env: TestEnv
  let server: TestServer
  let url: string

  beforeAll(async () => {
    env = await createTestEnv()
    server = await startTestServer(env.db, { limits: { maxBatchSize: 5, maxBodyBytes: 64 * 1024 } })
    url = `${server.base}/v3/${env.key}`
  })

  afterAll(async () => {
    await server?.rpc.close()
    await env?.close()
  })

  test('default: one call; the body has no trailing newline', async () => {
    const res = await rawRequest(url, { body: call('1') })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.body).toBe(nullAnswer('1'))
  })

  test('behavior: batch answers every call in order, notifications get nothing', async () => {
    const batch = `[${call('1')},{"jsonrpc":"2.0","method":"eth_getUncleByBlockHashAndIndex","params":[]},${call('"b"', H)}]`
    const res = await post(url, batch)
    expect(res.status).toBe(200)
    const [first, second, ...rest] = JSON.parse(res.body) as { id: unknown; result: { hash?: string } | null }[]
    expect(rest).toEqual([])
    expect(first).toEqual({ jsonrpc: '2.0', id: 1, result: null })
    expect(second?.id).toBe('b')
    expect(second?.result?.hash).toBe('0x932bdf904546a2287a2c9b2ede37925f698a7657484b172d4e5184f80bdd464d')
  })

  test('behavior: [] is a single -32600 empty batch', async () => {
    expect(await post(url, '[]')).toEqual({ status: 200, body: error('null', -32600, 'empty batch') })
    expect(await post(url, ' [ ] ')).toEqual({ status: 200, body: error('null', -32600, 'empty batch') })
  })

  test('behavior: a batch of only notifications: HTTP 200 with an empty body', async () => {
    const note = '{"jsonrpc":"2.0","method":"eth_getUncleByBlockHashAndIndex","params":["0x1","0x0"]}'
    const res = await rawRequest(url, { body: `[${note},${note}]` })
    expect(res.status).toBe(200)
    expect(res.body).toBe('')
    expect((await rawRequest(url, { body: note })).body).toBe('')
  })

  test('error: batch over the limit is one -32600 batch too large', async () => {
    const batch = `[${Array.from({ length: 6 }, (_, i) => call(String(i))).join(',')}]`
    expect(await post(url, batch)).toEqual({ status: 200, body: error('null', -32600, 'batch too large: at most 5 calls per batch') })
  })

  test('error: parse error, wrong jsonrpc, non-object entries', async () => {
    for (const text of ['', '{', '{"jsonrpc":"2.0",', 'nul', '[1,', '\u00ff'])
      expect(await post(url, text)).toEqual({ status: 200, body: error('null', -32700, 'parse error') })
    expect((await post(url, call('7').replace('"2.0"', '"1.0"'))).body).toBe(error('7', -32600, 'invalid request'))
    expect((await post(url, call('7').replace('"2.0"', '2'))).body).toBe(error('7', -32600, 'invalid request'))
    expect((await post(url, '1')).body).toBe(error('null', -32600, 'invalid request'))
    expect((await post(url, `[1,"x",null,[],${call('2')}]`)).body).toBe(
      `[${[1, 2, 3, 4].map(() => error('null', -32600, 'invalid request')).join(',')},${nullAnswer('2')}]`,
    )
  })

  test('args: ids of every JSON type are echoed exactly as sent', async () => {
    for (const id of ['0', '-1', '123456789012345678901234567890', '1.50', '1e400', '"x"', '"\\u00e9<&>"', 'null', 'true', 'false'])
      expect((await post(url, call(id))).body).toBe(nullAnswer(id))
    // Objects and arrays are not valid ids.
    expect((await post(url, call('{"a":1}'))).body).toBe(error('null', -32600, 'invalid request'))
    expect((await post(url, call('[1]'))).body).toBe(error('null', -32600, 'invalid request'))
  })

  test('args: Content-Type with parameters is accepted', async () => {
    const res = await rawRequest(url, { headers: { 'content-type': 'Application/JSON; charset=utf-8' }, body: call('1') })
    expect(res).toMatchObject({ status: 200, body: nullAnswer('1') })
  })

  test('error: wrong or missing Content-Type → 415 with a JSON-RPC body', async () => {
    const body = error('null', -32600, 'unsupported content type: send application/json')
    for (const headers of [{ 'content-type': 'text/plain' }, {}, { 'content-type': 'application/jsonx' }])
      expect(await rawRequest(url, { headers, body: call('1') })).toMatchObject({ status: 415, body })
  })

  test('error: body over the limit → 413 with a JSON-RPC body (declared length and chunked)', async () => {
    const body = error('null', -32600, 'request body too large: the limit is 65536 bytes')
    const big = `[${Array.from({ length: 1000 }, (_, i) => call(String(i))).join(',')}]`
    expect(await rawRequest(url, { body: big })).toMatchObject({ status: 413, body })
    expect(await post(url, big)).toEqual({ status: 413, body })
    const chunked = await rawRequest(url, { headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: big })
    expect(chunked).toMatchObject({ status: 413, body })
    // The server is still fine afterwards.
    expect((await post(url, call('1'))).body).toBe(nullAnswer('1'))
  })

  test('behavior: a body that is literally tooLarge is answered as any other text (parse error), not 413', async () => {
    const body = error('null', -32700, 'parse error')
    expect(await rawRequest(url, { body: 'tooLarge' })).toMatchObject({ status: 200, body })
    // Note: chunked bodies are read by node:http's listener (http.ts), not the fast path.
    const chunked = await rawRequest(url, { headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: 'tooLarge' })
    expect(chunked).toMatchObject({ status: 200, body })
  })

  test('error: unknown network in the path → 404 naming it and listing the known ones', async () => {
    const body = error('null', -32601, 'network \\"sepolia\\" is not served here; known networks: mainnet')
    expect(await post(`${server.base}/sepolia/v3/${env.key}`, call('1'))).toEqual({ status: 404, body })
    const withHost = (host: string) =>
      rawRequest(url, { headers: { 'content-type': 'application/json', host: `${host}:${server.port}` }, body: call('1') })
    expect(await withHost('mainnet.example.com')).toMatchObject({ status: 200, body: nullAnswer('1') })
    // One network: every host is that network, whatever its first label.
    expect(await withHost('sepolia.example.com')).toMatchObject({ status: 200, body: nullAnswer('1') })
    expect(await withHost('MAINNET.localhost')).toMatchObject({ status: 200, body: nullAnswer('1') })
    // No network label (an IP address, a single label): the only network served.
    expect(await withHost('localhost')).toMatchObject({ status: 200, body: nullAnswer('1') })
  })

  test('behavior: an absolute-form target (POST http://host/v3/KEY HTTP/1.1) is answered as its path, its authority taken as the Host', async () => {
    const raw = (target: string, host: string) =>
      new Promise<string>((resolve, reject) => {
        const body = call('1')
        const socket = connect(server.port, '127.0.0.1', () => {
          socket.write(`POST ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
        })
        let text = ''
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString()
        })
        socket.on('end', () => resolve(text))
        socket.on('error', reject)
      })
    const answered = await raw(`http://127.0.0.1:${server.port}/v3/${env.key}`, 'elsewhere.example.com')
    expect(answered).toMatch(/^HTTP\/1\.1 200 /)
    expect(answered.endsWith(nullAnswer('1'))).toBe(true)
    const byPath = await raw(`http://127.0.0.1:${server.port}/sepolia/v3/${env.key}`, `127.0.0.1:${server.port}`)
    expect(byPath).toMatch(/^HTTP\/1\.1 404 /)
    expect(byPath).toContain('network \\"sepolia\\" is not served here')
  })

  test('error: missing key → 401 project id required; unknown or revoked key → 401 invalid project id', async () => {
    const missing = { status: 401, body: error('null', -32000, 'project id required in the url') }
    const invalid = { status: 401, body: error('null', -32000, 'invalid project id') }
    expect(await post(`${server.base}/v3`, call('1'))).toEqual(missing)
    expect(await post(`${server.base}/v3/`, call('1'))).toEqual(missing)
    expect(await post(`${server.base}/mainnet/v3/`, call('1'))).toEqual(missing)
    expect(await post(`${server.base}/v3/${'0'.repeat(32)}`, call('1'))).toEqual(invalid)
    expect(await post(`${server.base}/v3/${env.key.toUpperCase()}`, call('1'))).toEqual(invalid)
    expect(await post(`${server.base}/v3/${'x'.repeat(500)}`, call('1'))).toEqual(invalid)
  })

  test('behavior: health, ready, 405 on GET of the RPC path, JSON 404 elsewhere', async () => {
    expect(await rawRequest(`${server.base}/health`, { method: 'GET', headers: {} })).toMatchObject({
      status: 200,
      body: '{"status":"ok"}',
    })
    const ready = await rawRequest(`${server.base}/ready`, { method: 'GET', headers: {} })
    expect(ready.status).toBe(200)
    expect(JSON.parse(ready.body)).toEqual({ status: 'ready' })
    const get = await rawRequest(url, { method: 'GET', headers: {} })
    expect(get).toMatchObject({ status: 405, body: error('null', -32600, 'method not allowed: send JSON-RPC requests with POST') })
    expect(get.headers.allow).toBe('POST')
    const missing = await rawRequest(`${server.base}/nothing/here`, { method: 'POST' })
    expect(missing.status).toBe(404)
    expect(JSON.parse(missing.body).error.code).toBe(-32601)
    expect(missing.headers['x-powered-by']).toBeUndefined()
    expect(ready.headers.etag).toBeUndefined()
  })
})
