import { describeWithFixtures, readFixtureJson } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { derivedUncles, expectedResultJson, infuraSampleResponse, mainnetBlocksFixture, mainnetUnclesDerived, paramCases } from '../_test/seed.js'
import { createTestEnv, openWs, post, rawRequest, startTestServer, type TestEnv, type TestServer } from '../_test/server.js'

// The acceptance answers: every real mainnet uncle over HTTP and WebSocket, byte for byte.

const method = 'eth_getUncleByBlockHashAndIndex'
const call = (id: number, blockHash: string, index: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":["${blockHash}","${index}"]}`
const answer = (id: number, resultJson: string) => `{"jsonrpc":"2.0","id":${id},"result":${resultJson}}`

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived, infuraSampleResponse, paramCases], 'answers', () => {
  let env: TestEnv
  let cached: TestServer
  let uncached: TestServer
  const lines = derivedUncles()
  const requests = lines.map((l, i) => call(i, l.blockHash, l.index))
  const expected = lines.map((l, i) => answer(i, expectedResultJson(l.result)))
  const batches = (size: number) =>
    Array.from({ length: Math.ceil(lines.length / size) }, (_, b) => ({
      text: `[${requests.slice(b * size, (b + 1) * size).join(',')}]`,
      body: `[${expected.slice(b * size, (b + 1) * size).join(',')}]`,
    }))

  beforeAll(async () => {
    env = await createTestEnv()
    cached = await startTestServer(env.db)
    uncached = await startTestServer(env.db, { cacheEntries: 0 })
  })

  afterAll(async () => {
    await cached?.rpc.close()
    await uncached?.rpc.close()
    await env?.close()
  })

  test('default: the fixture has 1,410 uncles', () => {
    expect(lines).toHaveLength(1410)
  })

  test('behavior: all 1,410 uncles over HTTP (batches of 500) equal geth’s bytes with totalDifficulty null', async () => {
    for (const server of [cached, uncached, cached]) {
      for (const batch of batches(500)) {
        const res = await post(`${server.base}/v3/${env.key}`, batch.text)
        expect(res.status).toBe(200)
        expect(res.body).toBe(batch.body)
      }
    }
    // The first cached pass filled the cache (confirmations 0: every block is deep enough).
    expect(cached.rpc.cache.size).toBe(1410)
    expect(uncached.rpc.cache.size).toBe(0)
  })

  test('behavior: all 1,410 uncles over WebSocket (batches of 500), cache on and off', async () => {
    for (const server of [cached, uncached]) {
      const ws = await openWs(`${server.wsBase}/ws/v3/${env.key}`)
      for (const batch of batches(500)) expect(await ws.send(batch.text)).toBe(batch.body)
      await ws.close()
    }
  })

  test('behavior: single requests (every 10th uncle) over HTTP, host-named and path-named, and WebSocket', async () => {
    const ws = await openWs(`${uncached.wsBase}/mainnet/ws/v3/${env.key}`)
    for (let i = 0; i < lines.length; i += 10) {
      expect((await post(`${cached.base}/mainnet/v3/${env.key}`, requests[i]!)).body).toBe(expected[i])
      const headers = { 'content-type': 'application/json', host: `mainnet.localhost:${uncached.port}` }
      expect((await rawRequest(`${uncached.base}/v3/${env.key}`, { headers, body: requests[i]! })).body).toBe(expected[i])
      expect(await ws.send(requests[i]!)).toBe(expected[i])
    }
    await ws.close()
  })

  test('behavior: block 668 index 0 equals the documented Infura sample response as JSON', async () => {
    const line = lines.find((l) => l.blockNumber === 668 && l.index === '0x0')!
    const sample = readFixtureJson<unknown>(infuraSampleResponse)
    for (const server of [cached, uncached]) {
      const res = await post(`${server.base}/v3/${env.key}`, call(1, line.blockHash, '0x0'))
      expect(JSON.parse(res.body)).toEqual(sample)
    }
  })

  test('behavior: every geth_param_validation_cases.json case gets geth’s body (totalDifficulty null added to results)', async () => {
    const { cases } = readFixtureJson<{ cases: { name: string; request: unknown; gethBody: string }[] }>(paramCases)
    expect(cases).toHaveLength(14)
    const ws = await openWs(`${cached.wsBase}/ws/v3/${env.key}`)
    for (const c of cases) {
      const body = c.gethBody.includes('"result":{')
        ? c.gethBody.replace(',"transactionsRoot"', ',"totalDifficulty":null,"transactionsRoot"')
        : c.gethBody
      for (const server of [cached, uncached]) {
        const res = await post(`${server.base}/v3/${env.key}`, JSON.stringify(c.request))
        expect({ name: c.name, status: res.status, body: res.body }).toEqual({ name: c.name, status: 200, body })
      }
      expect(await ws.send(JSON.stringify(c.request))).toBe(body)
    }
    await ws.close()
  })
})
