import { describeWithFixtures } from '@uncle-rpc/testing'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived } from '../_test/seed.js'
import { createTestEnv, openWs, post, startTestServer, type TestEnv, type TestServer, type WsClient } from '../_test/server.js'

// ≥ 10,000 generated and mutated requests at the live HTTP and WebSocket endpoints: every answer
// is valid JSON-RPC (or the documented HTTP error), never a 5xx, never an internal error, and
// HTTP and WebSocket answer the same bytes.

const method = 'eth_getUncleByBlockHashAndIndex'
const maxBodyBytes = 16 * 1024
const known = derivedUncles().slice(0, 50)

const hex = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: length, maxLength: length })
const hash = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...known.map((l) => l.blockHash)) },
  hex(64).map((h) => `0x${h}`),
  hex(64).map((h) => `0X${h}`),
  fc.integer({ min: 0, max: 70 }).chain((n) => hex(n).map((h) => `0x${h}`)),
  hex(64),
  fc.string(),
  fc.jsonValue(),
)
const index = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('0x0', '0x1') },
  fc.constantFrom('0x0', '0x1', '0x2', '0x', '', '0x00', '0x01', '0X1', '0x7fff', '0x8000', '0xffffffffffffffff', '0x10000000000000000'),
  fc.bigInt({ min: 0n, max: 2n ** 80n }).map((n) => `0x${n.toString(16)}`),
  fc.string(),
  fc.jsonValue(),
)
const id = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom('123456789012345678901234567890', '-0', '1e400', '1.0', '0.1e-400', 'null', 'true', '"\\u2028<&>"', '{}', '[1]'),
  fc.string().map((s) => JSON.stringify(s)),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
)
const methodName = fc.oneof(
  { weight: 10, arbitrary: fc.constant(`"${method}"`) },
  fc.constantFrom(`"eth_getunclebyblockhashandindex"`, '""', '1', 'null', `"${method} "`, '"toString"', '"__proto__"'),
  fc.string().map((s) => JSON.stringify(s)),
)
const params = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(hash, index).map((p) => JSON.stringify(p)) },
  fc.tuple(hash, index).map(([h, i]) => JSON.stringify([h, i, true])),
  fc.array(fc.jsonValue(), { maxLength: 3 }).map((p) => JSON.stringify(p)),
  fc.constantFrom('[]', 'null', '{}', '"x"', '1'),
)
/** One request object as text, members sometimes missing, reordered or duplicated. */
const requestObject = fc
  .record({
    jsonrpc: fc.oneof({ weight: 10, arbitrary: fc.constant('"2.0"') }, fc.constantFrom('"1.0"', '2', 'null', '"2.0 "')),
    id: fc.option(id, { nil: undefined, freq: 5 }),
    method: fc.option(methodName, { nil: undefined, freq: 8 }),
    params: fc.option(params, { nil: undefined, freq: 8 }),
    extra: fc.option(fc.constantFrom('"result":"0x1"', '"error":{}', '"id":2', '"x":[1,{}]'), { nil: undefined, freq: 6 }),
  })
  .chain((r) => {
    const members = Object.entries(r)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => (k === 'extra' ? v! : `"${k}":${v}`))
    return fc.shuffledSubarray(members, { minLength: members.length, maxLength: members.length }).map((m) => `{${m.join(',')}}`)
  })
const entry = fc.oneof({ weight: 8, arbitrary: requestObject }, { weight: 1, arbitrary: fc.json() })
const structured = fc.oneof(
  { weight: 5, arbitrary: requestObject },
  { weight: 3, arbitrary: fc.array(entry, { maxLength: 8 }).map((e) => `[${e.join(',')}]`) },
  { weight: 1, arbitrary: fc.json() },
)
/** Text mutations: characters deleted, inserted or replaced; truncation; garbage. */
const mutated = fc
  .tuple(structured, fc.array(fc.tuple(fc.nat(), fc.constantFrom('delete', 'insert', 'replace'), fc.string({ maxLength: 3 })), { maxLength: 4 }))
  .map(([text, edits]) => {
    let t = text
    for (const [at, kind, s] of edits) {
      const i = t.length === 0 ? 0 : at % t.length
      t = kind === 'delete' ? t.slice(0, i) + t.slice(i + 1) : kind === 'insert' ? t.slice(0, i) + s + t.slice(i) : t.slice(0, i) + s + t.slice(i + 1)
    }
    return t
  })
const body = fc.oneof(
  { weight: 10, arbitrary: structured },
  { weight: 6, arbitrary: mutated },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.constantFrom('9'.repeat(5000), `[${'['.repeat(3000)}`, '"\\ud800"', `{"id":${'1'.repeat(400)}}`) },
)

function isResponseObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const r = value as Record<string, unknown>
  const keys = Object.keys(r).join(',')
  if (r.jsonrpc !== '2.0' || (r.id !== null && typeof r.id === 'object')) return false
  if (keys === 'jsonrpc,id,result') return true
  if (keys !== 'jsonrpc,id,error') return false
  const e = r.error as { code: unknown; message: unknown }
  // Note: -32603 would be an internal failure: never expected here. -32000: the 401 bodies.
  return [-32700, -32600, -32601, -32602, -32000].includes(e.code as number) && typeof e.message === 'string'
}

/** What the answers were, so the test can check that the generators reach every kind. */
const tally = new Map<string, number>()
function count(kind: string): void {
  tally.set(kind, (tally.get(kind) ?? 0) + 1)
}

function checkBody(text: string): void {
  if (text === '') return count('no answer')
  const value: unknown = JSON.parse(text)
  const ok = Array.isArray(value) ? value.length > 0 && value.every(isResponseObject) : isResponseObject(value)
  expect(ok, text.slice(0, 300)).toBe(true)
  if (Array.isArray(value)) count('batch')
  for (const r of [value].flat() as { result?: unknown; error?: { code: number } }[])
    count(r.error ? String(r.error.code) : r.result === null ? 'null' : 'uncle')
}

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'fuzz', () => {
  let env: TestEnv
  let server: TestServer
  let ws: WsClient
  const sentinel = '{"jsonrpc":"2.0","id":"sentinel","method":"x"}'
  const sentinelAnswer = '{"jsonrpc":"2.0","id":"sentinel","error":{"code":-32601,"message":"the method x does not exist/is not available"}}'

  beforeAll(async () => {
    env = await createTestEnv()
    server = await startTestServer(env.db, { cacheEntries: 20, limits: { maxBodyBytes, maxWsMessageBytes: maxBodyBytes, maxBatchSize: 6 } })
    ws = await openWs(`${server.wsBase}/ws/v3/${env.key}`)
  })

  afterAll(async () => {
    await ws?.close()
    await server?.rpc.close()
    await env?.close()
  })

  test('behavior: 10,000 generated requests, each over HTTP and then WebSocket, get the same valid answer', async () => {
    let runs = 0
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        runs++
        const res = await post(`${server.base}/v3/${env.key}`, text)
        checkBody(res.body)
        if (Buffer.byteLength(text) > maxBodyBytes) {
          expect(res.status).toBe(413)
        } else if (res.body !== '') {
          expect(res.status).toBe(200)
          expect(await ws.send(text)).toBe(res.body)
        } else {
          // No answer over HTTP, so none over WebSocket either: the next message is the sentinel's.
          expect(res.status).toBe(200)
          ws.socket.send(text)
          expect(await ws.send(sentinel)).toBe(sentinelAnswer)
        }
      }),
      { numRuns: 10_000, seed: 20261122 },
    )
    expect(runs).toBe(10_000)
    for (const kind of ['uncle', 'null', 'batch', 'no answer', '-32700', '-32600', '-32601', '-32602'])
      expect(tally.get(kind) ?? 0, `${kind}: ${JSON.stringify([...tally])}`).toBeGreaterThan(100)
  })

  test('behavior: the documented HTTP errors for bad addresses and content types, never a 5xx', async () => {
    const envelope = fc.record({
      path: fc.constantFrom(`/v3/${env.key}`, `/mainnet/v3/${env.key}`, '/v3/', '/v3/bad', '/ropsten/v3/x', `/v3/${env.key}?x=1`),
      type: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'),
    })
    await fc.assert(
      fc.asyncProperty(envelope, body, async ({ path, type }, text) => {
        const res = await post(`${server.base}${path}`, text, { 'content-type': type })
        const expected = path.startsWith('/ropsten')
          ? 404
          : path === '/v3/' || path === '/v3/bad'
            ? 401
            : type.startsWith('application/json')
              ? Buffer.byteLength(text) > maxBodyBytes
                ? 413
                : 200
              : 415
        expect(res.status).toBe(expected)
        checkBody(res.body)
      }),
      { numRuns: 1000, seed: 7 },
    )
    // Still up and answering.
    expect((await post(`${server.base}/v3/${env.key}`, sentinel)).body).toBe(sentinelAnswer)
    expect(await ws.send(sentinel)).toBe(sentinelAnswer)
  })
})
