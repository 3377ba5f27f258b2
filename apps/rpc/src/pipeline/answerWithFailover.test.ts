import { createLogger } from '@uncle-rpc/config'
import { createDb, type Db } from '@uncle-rpc/db'
import { createApiKey, hashSecret, listUsage, zeroUsageCounts } from '@uncle-rpc/db/accounts'
import { openTestDatabase, type OpenTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, describeWithFixtures, fixturePath, spawnCli } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type DerivedUncle, derivedUncles, expectedResultJson, mainnetBlocksFixture, mainnetUnclesDerived, seedMainnetUncles } from '../_test/seed.js'
import { openWs, rawRequest } from '../_test/server.js'
import { createTcpProxy, type TcpProxy } from '../_test/tcpProxy.js'
import { indexUnavailableMessages } from '../methods/failoverPolicy.js'
import { createRpcServer, type RpcServer } from '../server.js'

// Failover forwarding in one process, against a real partner (the era1 sample node) and a real
// Postgres behind a TCP proxy the tests cut, hang and restore. Only blocks 0..4095 are indexed.
// The partner's answers are not verified here (verifyPartner false: passed on as sent).

const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'
const call = (id: number | string, u: { blockHash: string; index: string }) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"eth_getUncleByBlockHashAndIndex","params":["${u.blockHash}","${u.index}"]}`
const localBody = (id: number, u: DerivedUncle) => `{"jsonrpc":"2.0","id":${id},"result":${expectedResultJson(u.result)}}`
/** The sample node's answer: geth's bytes (no totalDifficulty), with a trailing newline. */
const partnerBody = (id: number, u: DerivedUncle) => `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(u.result)}}\n`

describeWithFixtures([era1, mainnetBlocksFixture, mainnetUnclesDerived], 'failover forwarding (in process)', () => {
  let setup: OpenTestDatabase
  let served: { db: Db; close: () => Promise<void> }
  let node: CliProcess
  let dbProxy: TcpProxy
  let partnerProxy: TcpProxy
  let rpc: RpcServer
  let base: string
  const keys: Record<'growth' | 'growthOn' | 'core' | 'usage', string> = { growth: '', growthOn: '', core: '', usage: '' }
  let uncles: DerivedUncle[]
  let indexed: DerivedUncle[]
  let unindexed: DerivedUncle[]

  const post = (key: string, body: string, headers: Record<string, string> = {}) =>
    rawRequest(`${base}/v3/${key}`, { headers: { 'content-type': 'application/json', ...headers }, body })
  const failover = { 'enable-failover': 'true' }

  beforeAll(async () => {
    node = spawnCli(['sample-node', '--port', '0', '--chain', fixturePath(era1)])
    uncles = derivedUncles()
    indexed = uncles.filter((u) => u.blockNumber <= 4095)
    unindexed = uncles.filter((u) => u.blockNumber >= 5000)
    setup = await openTestDatabase({ max: 2 })
    await seedMainnetUncles(setup.db, 'mainnet', 4095)
    keys.growth = (await createApiKey(setup.db, { plan: 'growth' })).key
    keys.growthOn = (await createApiKey(setup.db, { plan: 'growth', failover: true })).key
    keys.core = (await createApiKey(setup.db, { plan: 'core' })).key
    keys.usage = (await createApiKey(setup.db, { plan: 'custom' })).key
    const pg = new URL(setup.url)
    dbProxy = await createTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) })
    pg.port = String(dbProxy.port)
    served = createDb({ url: pg.toString(), max: 4 })
    const partner = new URL((await node.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1]!)
    partnerProxy = await createTcpProxy({ host: partner.hostname, port: Number(partner.port) })
    rpc = createRpcServer(
      { db: served.db, logger: createLogger({ level: 'fatal', name: 'failover-test' }) },
      {
        // Note: the partner's answers pass unchecked here (verifiedFailover.test.ts checks them), so they come as the partner sent them.
        networks: [{ name: 'mainnet', confirmations: 0, partnerUrl: `http://127.0.0.1:${partnerProxy.port}/`, verifyPartner: false }],
        cacheEntries: 0,
        dbDeadlineMs: 250,
        partner: { timeoutMs: 300, failureThreshold: 3, cooldownMs: 300 },
        usageFlushMs: 3_600_000,
      },
    )
    base = `http://127.0.0.1:${(await rpc.listen(0, '127.0.0.1')).port}`
  }, 90_000)

  afterAll(async () => {
    await rpc?.close()
    await Promise.all([served?.close(), dbProxy?.close(), partnerProxy?.close(), node?.stop()])
    await setup?.close()
  })

  test('default: an unindexed block’s uncle comes from the partner as is, only with failover on', async () => {
    const u = unindexed[0]!
    const withHeader = await post(keys.growth, call(1, u), failover)
    expect(withHeader.body).toBe(partnerBody(1, u))
    expect(withHeader.headers['x-failover']).toBe('partner')
    const byKeySetting = await post(keys.growthOn, call(2, u))
    expect(byKeySetting).toMatchObject({ body: partnerBody(2, u), headers: { 'x-failover': 'partner' } })
    for (const [key, headers] of [[keys.growth, {}], [keys.core, failover]] as const) {
      const local = await post(key, call(3, u), headers)
      expect(local.body).toBe('{"jsonrpc":"2.0","id":3,"result":null}')
      expect(local.headers['x-failover']).toBeUndefined()
    }
  })

  test('behavior: indexed answers stay local; a known block past its last uncle is an authoritative null', async () => {
    const u = indexed[0]!
    const found = await post(keys.growth, call(1, u), failover)
    expect([found.body, found.headers['x-failover']]).toEqual([localBody(1, u), undefined])
    const past = await post(keys.growth, call(2, { blockHash: u.blockHash, index: '0x5' }), failover)
    expect([past.body, past.headers['x-failover']]).toEqual(['{"jsonrpc":"2.0","id":2,"result":null}', undefined])
  })

  test('behavior: in a batch only the entries that need the partner go to it; the rest stay local, in place', async () => {
    const [a, b] = [indexed[1]!, unindexed[1]!]
    const batch = [
      call('local', a),
      call(2, b),
      '{"jsonrpc":"2.0","id":3,"method":"eth_getUncleByBlockHashAndIndex","params":["0x12","0x0"]}',
      call(4, { blockHash: a.blockHash, index: '0x7' }),
      `{"jsonrpc":"2.0","method":"eth_getUncleByBlockHashAndIndex","params":["${b.blockHash}","${b.index}"]}`,
    ]
    const res = await post(keys.growth, `[${batch.join(',')}]`, failover)
    expect(res.headers['x-failover']).toBe('partner')
    const parts = JSON.parse(res.body) as unknown[]
    expect(parts).toHaveLength(4)
    expect(res.body).toBe(
      '[' +
        [
          `{"jsonrpc":"2.0","id":"local","result":${expectedResultJson(a.result)}}`,
          `{"jsonrpc":"2.0","id":2,"result":${JSON.stringify(b.result)}}`,
          '{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"invalid argument 0: hex string has length 2, want 64 for common.Hash"}}',
          '{"jsonrpc":"2.0","id":4,"result":null}',
        ].join(',') +
        ']',
    )
  })

  test('behavior: WebSocket messages are forwarded by the key setting', async () => {
    const u = unindexed[2]!
    const ws = await openWs(`${base.replace('http', 'ws')}/ws/v3/${keys.growthOn}`)
    expect(await ws.send(call(9, u))).toBe(partnerBody(9, u))
    await ws.close()
  })

  test('behavior: database cut or hung: failover keys get the partner within the deadline, others the hint; then the index again', async () => {
    const u = indexed[2]!
    for (const outage of ['cut', 'hang'] as const) {
      if (outage === 'cut') await dbProxy.cut()
      else dbProxy.hang()
      const started = performance.now()
      const forwarded = await post(keys.growth, call(1, u), failover)
      expect(performance.now() - started).toBeLessThan(800)
      expect(forwarded).toMatchObject({ body: partnerBody(1, u), headers: { 'x-failover': 'partner' } })
      const hint = (kind: 'not-allowed' | 'off') => `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":${JSON.stringify(indexUnavailableMessages[kind])}}}`
      expect((await post(keys.core, call(2, u), failover)).body).toBe(hint('not-allowed'))
      expect((await post(keys.growth, call(2, u))).body).toBe(hint('off'))
      await dbProxy.restore()
      // Note: reads that missed the deadline may have paused the index for a moment; it answers again.
      let back = await post(keys.growth, call(3, u), failover)
      for (let tries = 0; tries < 40 && back.headers['x-failover'] !== undefined; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        back = await post(keys.growth, call(3, u), failover)
      }
      expect([back.body, back.headers['x-failover']]).toEqual([localBody(3, u), undefined])
    }
    expect(indexUnavailableMessages['not-allowed']).toContain('available on the Growth and Custom plans (upgrade to Growth, or contact sales for Custom)')
  })

  test('behavior: partner down: the circuit opens, failover calls fail fast, and it closes when the partner is back', async () => {
    const u = unindexed[3]!
    partnerProxy.hang()
    const failures = await Promise.all([1, 2, 3].map((id) => post(keys.growth, call(id, u), failover)))
    for (const f of failures) expect(JSON.parse(f.body)).toMatchObject({ error: { code: -32603, data: { reason: 'timeout' } } })
    expect(rpc.partners.get('mainnet')?.state).toBe('open')
    const started = performance.now()
    const fast = await post(keys.growth, call(4, u), failover)
    // Note: well under the partner's 300 ms timeout, with room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(250)
    expect(JSON.parse(fast.body)).toMatchObject({ id: 4, error: { code: -32603, data: { reason: 'circuit open' } } })
    expect(fast.headers['x-failover']).toBeUndefined()
    await partnerProxy.restore()
    await new Promise((resolve) => setTimeout(resolve, 350))
    expect(await post(keys.growth, call(5, u), failover)).toMatchObject({ body: partnerBody(5, u), headers: { 'x-failover': 'partner' } })
    expect(rpc.partners.get('mainnet')?.state).toBe('closed')
  })

  test('behavior: usage per key and day counts requests, errors and forwarded calls', async () => {
    const [a, b] = [indexed[3]!, unindexed[4]!]
    await post(keys.usage, call(1, a), failover)
    await post(keys.usage, call(2, b), failover)
    await post(keys.usage, `[${call(3, a)},${call(4, b)},{"jsonrpc":"2.0","id":5,"method":"nope"}]`, failover)
    await post(keys.usage, 'not json')
    await rpc.usage.flush()
    const rows = await listUsage(setup.db, { keyHash: hashSecret(keys.usage), days: 1 })
    expect(rows).toEqual([{ keyId: expect.any(Number), day: new Date().toISOString().slice(0, 10), ...zeroUsageCounts(), requests: 6, errors: 2, forwarded: 2 }])
  })
})
