import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Db } from '@uncle-rpc/db'
import { createApiKey, hashSecret, listUsage, zeroUsageCounts } from '@uncle-rpc/db/accounts'
import { openTestDatabase, type OpenTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, describeWithFixtures, fixturePath, runCli, spawnCli } from '@uncle-rpc/testing'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { type DerivedUncle, derivedUncles, expectedResultJson, mainnetUnclesDerived } from './_test/seed.js'
import { rawRequest } from './_test/server.js'
import { createTcpProxy, type TcpProxy } from './_test/tcpProxy.js'

// Issue 5's acceptance, every process real: two era1 sample nodes (the upstream and the partner),
// `uncle-rpc indexer` for blocks 0..4095 only, two `uncle-rpc rpc` processes sharing Redis, and
// Postgres and the partner each behind a TCP proxy that the tests cut.

const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'
const upgradeHint = 'available on the Growth and Custom plans (upgrade to Growth, or contact sales for Custom)'
const call = (id: number, u: { blockHash: string; index: string }) =>
  `{"jsonrpc":"2.0","id":${id},"method":"eth_getUncleByBlockHashAndIndex","params":["${u.blockHash}","${u.index}"]}`
const localBody = (id: number, u: DerivedUncle) => `{"jsonrpc":"2.0","id":${id},"result":${expectedResultJson(u.result)}}`
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1020 - (Date.now() % 1000)))
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1)!

describeWithFixtures([era1, mainnetUnclesDerived], 'acceptance: plans, rate limits, usage and failover (real processes)', () => {
  let database: OpenTestDatabase
  let db: { db: Db }
  let upstream: CliProcess
  let partner: CliProcess
  let partnerUrl: string
  let dbProxy: TcpProxy
  let partnerProxy: TcpProxy
  const rpcs: CliProcess[] = []
  let a: string
  let b: string
  const keys = { growth: '', core: '', rps5: '', daily20: '', shared: '', usage: '' }
  let indexed: DerivedUncle[]
  let unindexed: DerivedUncle[]

  const post = (base: string, key: string, body: string, headers: Record<string, string> = {}) =>
    rawRequest(`${base}/v3/${key}`, { headers: { 'content-type': 'application/json', ...headers }, body })
  const failover = { 'enable-failover': 'true' }
  /** The partner's own answer to `body`, asked directly. */
  const fromPartner = async (body: string) => (await rawRequest(partnerUrl, { body })).body

  beforeAll(async () => {
    const uncles = derivedUncles()
    indexed = uncles.filter((u) => u.blockNumber <= 4095)
    // The brief's block 5000 has no uncles; the first block at or after it that has one is 5009.
    unindexed = uncles.filter((u) => u.blockNumber >= 5000)
    upstream = spawnCli(['sample-node', '--port', '0', '--chain', fixturePath(era1)])
    partner = spawnCli(['sample-node', '--port', '0', '--chain', fixturePath(era1)])
    database = await openTestDatabase({ max: 2 })
    db = database
    const pg = new URL(database.url)
    dbProxy = await createTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) })
    const upstreamUrl = (await upstream.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1]!
    partnerUrl = (await partner.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1]!
    partnerProxy = await createTcpProxy({ host: '127.0.0.1', port: Number(new URL(partnerUrl).port) })
    const config = join(tmpdir(), `uncle-rpc-acceptance-${process.pid}.json`)
    // Note: the partner's answers pass unchecked (verifyPartner false), so they come byte for byte as the partner sent them; pipeline/verifiedFailover.test.ts checks the verified ones.
    const network = { name: 'mainnet', chainId: 1, rpcUrl: upstreamUrl, toBlock: 4095, confirmations: 0, partnerUrl: `http://127.0.0.1:${partnerProxy.port}/`, verifyPartner: false }
    writeFileSync(config, JSON.stringify({ networks: [network] }))
    const env = { DATABASE_URL: database.url }
    const [indexer, rps5, daily20] = await Promise.all([
      runCli(['indexer', '--config', config, '--exit-when-done'], { env }),
      runCli(['keys', 'create', '--plan', 'growth', '--rps', '5', '--label', 'rps5'], { env }),
      runCli(['keys', 'create', '--plan', 'growth', '--daily', '20', '--label', 'daily20'], { env }),
    ])
    expect(indexer.code, indexer.stderr).toBe(0)
    expect([rps5.code, daily20.code]).toEqual([0, 0])
    keys.rps5 = lastLine(rps5.stdout)
    keys.daily20 = lastLine(daily20.stdout)
    keys.growth = (await createApiKey(db.db, { plan: 'growth' })).key
    keys.core = (await createApiKey(db.db, { plan: 'core' })).key
    keys.shared = (await createApiKey(db.db, { plan: 'growth', rpsLimit: 6 })).key
    keys.usage = (await createApiKey(db.db, { plan: 'growth' })).key

    pg.port = String(dbProxy.port)
    const flags = ['--config', config, '--port', '0', '--db-deadline-ms', '250', '--partner-timeout-ms', '500']
    flags.push('--partner-failures', '3', '--partner-cooldown-ms', '500', '--usage-flush-ms', '300')
    for (let i = 0; i < 2; i++) rpcs.push(spawnCli(['rpc', ...flags], { env: { DATABASE_URL: pg.toString() } }))
    const bases = await Promise.all(rpcs.map(async (rpc) => (await rpc.waitFor(/rpc listening on (http:\/\/\S+?)\/v3\//, 60_000))[1]!))
    a = bases[0]!
    b = bases[1]!
  }, 120_000)

  // A process that died fails the test it died in with its own words, not the next request's ECONNREFUSED.
  afterEach(() => {
    for (const rpc of rpcs)
      if (rpc.child.exitCode !== null || rpc.child.signalCode !== null) throw new Error(`an rpc exited (${rpc.child.exitCode ?? rpc.child.signalCode}):\n${rpc.stderr().slice(-4000)}`)
  })

  afterAll(async () => {
    await Promise.all([...rpcs.map((rpc) => rpc.stop()), upstream?.stop(), partner?.stop()])
    await Promise.all([dbProxy?.close(), partnerProxy?.close()])
    await database?.close()
  })

  test('default: an uncle of an unindexed block (5009): the partner’s exact answer for growth + Enable-Failover; null otherwise', async () => {
    const u = unindexed[0]!
    expect(u.blockNumber).toBe(5009)
    const expected = await fromPartner(call(1, u))
    expect(expected).toBe(`{"jsonrpc":"2.0","id":1,"result":${JSON.stringify(u.result)}}\n`)
    const forwarded = await post(a, keys.growth, call(1, u), failover)
    expect([forwarded.status, forwarded.body, forwarded.headers['x-failover']]).toEqual([200, expected, 'partner'])
    for (const [key, headers] of [[keys.growth, {}], [keys.core, failover]] as const) {
      const local = await post(a, key, call(1, u), headers)
      expect([local.body, local.headers['x-failover']]).toEqual(['{"jsonrpc":"2.0","id":1,"result":null}', undefined])
    }
  })

  test('behavior: Postgres cut: growth answers through the partner within the deadline, core gets the upgrade hint; then the index again, no restart', async () => {
    // Uncles never asked for before, so no answer comes from the cache.
    const [u, v] = [indexed[10]!, indexed[11]!]
    await dbProxy.cut()
    try {
      for (const w of [u, v]) {
        const started = performance.now()
        const forwarded = await post(a, keys.growth, call(2, w), failover)
        expect(performance.now() - started).toBeLessThan(1000)
        expect([forwarded.body, forwarded.headers['x-failover']]).toEqual([await fromPartner(call(2, w)), 'partner'])
      }
      const refused = JSON.parse((await post(b, keys.core, call(3, u), failover)).body) as { error: { code: number; message: string } }
      expect(refused.error.code).toBe(-32603)
      expect(refused.error.message).toContain(upgradeHint)
    } finally {
      await dbProxy.restore()
    }
    const back = await post(a, keys.growth, call(4, v), failover)
    expect([back.body, back.headers['x-failover']]).toEqual([localBody(4, v), undefined])
  })

  test('behavior: a key created with --rps 5 sending 50 requests in one second: ≥ 40 refused with 429, -32005 and Retry-After; answered again after the window', async () => {
    const u = indexed[0]!
    await nextSecond()
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(a, keys.rps5, call(i, u))))
    const refused = answers.filter((r) => r.status === 429)
    expect(refused.length).toBeGreaterThanOrEqual(40)
    for (const r of refused) {
      expect(r.headers['retry-after']).toBe('1')
      const body = JSON.parse(r.body) as { error: { code: number; message: string; data: Record<string, number> } }
      expect(body.error).toMatchObject({ code: -32005, message: 'project ID request rate exceeded', data: { allowed_rps: 5, backoff_seconds: 1 } })
      expect(body.error.data.current_rps).toBeGreaterThan(5)
    }
    expect(answers.filter((r) => r.status === 200).every((r) => r.body.includes('"hash"'))).toBe(true)
    await nextSecond()
    expect((await post(a, keys.rps5, call(99, u))).status).toBe(200)
  })

  test('behavior: a key created with --daily 20: the 21st request is refused until UTC midnight', async () => {
    const u = indexed[0]!
    const statuses = []
    for (let i = 0; i < 22; i++) statuses.push((await post(i % 2 === 0 ? a : b, keys.daily20, call(i, u))).status)
    expect(statuses).toEqual([...Array<number>(20).fill(200), 429, 429])
    const refused = await post(a, keys.daily20, call(0, u))
    expect(JSON.parse(refused.body).error).toMatchObject({ code: -32005, message: 'daily request count exceeded, request rate limited' })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
  })

  test('behavior: two RPC processes share one key’s budget', async () => {
    const u = indexed[0]!
    await nextSecond()
    const answers = await Promise.all([a, b].flatMap((base) => Array.from({ length: 12 }, (_, i) => post(base, keys.shared, call(i, u)))))
    expect(answers.filter((r) => r.status === 200)).toHaveLength(6)
  })

  test('behavior: partner down: the breaker opens, failover calls fail fast, and it closes when the partner is back', async () => {
    const u = unindexed[1]!
    partnerProxy.hang()
    try {
      const slow = await Promise.all([1, 2, 3].map((id) => post(a, keys.growth, call(id, u), failover)))
      for (const r of slow) expect(JSON.parse(r.body)).toMatchObject({ error: { code: -32603, data: { reason: 'timeout' } } })
      for (let i = 0; i < 3; i++) {
        const started = performance.now()
        const fast = await post(a, keys.growth, call(4, u), failover)
        // Note: well under the partner's 500 ms timeout, with room for a loaded machine.
        expect(performance.now() - started).toBeLessThan(400)
        expect(JSON.parse(fast.body)).toMatchObject({ error: { code: -32603, data: { reason: 'circuit open' } } })
      }
    } finally {
      await partnerProxy.restore()
    }
    await new Promise((resolve) => setTimeout(resolve, 600))
    const again = await post(a, keys.growth, call(5, u), failover)
    expect([again.body, again.headers['x-failover']]).toEqual([await fromPartner(call(5, u)), 'partner'])
    expect(rpcs[0]!.stderr()).toMatch(/failover partner circuit open[\s\S]*failover partner circuit closed/)
  })

  test('behavior: usage rows in Postgres match the requests sent', async () => {
    const [local, remote] = [indexed[20]!, unindexed[2]!]
    await post(a, keys.usage, call(1, local))
    await post(b, keys.usage, call(2, local))
    await post(a, keys.usage, call(3, remote), failover)
    await post(b, keys.usage, `[${call(4, local)},${call(5, remote)},{"jsonrpc":"2.0","id":6,"method":"nope"}]`, failover)
    await post(a, keys.usage, '{"jsonrpc":"2.0","id":7,"method":"eth_getUncleByBlockHashAndIndex","params":[]}')
    const day = new Date().toISOString().slice(0, 10)
    const expected = { usage: { requests: 7, errors: 2, forwarded: 2, rateLimited: 0 }, rps5: { requests: 51, rateLimited: 0 } }
    let rows = await listUsage(db.db, { keyHash: hashSecret(keys.usage), days: 1 })
    for (let tries = 0; tries < 50 && rows?.[0]?.requests !== expected.usage.requests; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      rows = await listUsage(db.db, { keyHash: hashSecret(keys.usage), days: 1 })
    }
    expect(rows).toEqual([{ keyId: expect.any(Number), day, ...zeroUsageCounts(), ...expected.usage }])
    // The rate-limited key: every request counted, the refused ones as errors and rate_limited.
    const [limited] = (await listUsage(db.db, { keyHash: hashSecret(keys.rps5), days: 1 })) ?? []
    expect(limited?.requests).toBe(expected.rps5.requests)
    expect(limited?.rateLimited).toBe(limited?.errors)
    expect(limited?.rateLimited).toBeGreaterThanOrEqual(40)
    const cli = await runCli(['keys', 'usage', keys.usage], { env: { DATABASE_URL: database.url } })
    expect(cli.stdout).toBe(
      `day\trequests\terrors\tforwarded\trate_limited\trefused_revoked\trefused_network\trefused_origin\trefused_user_agent\trefused_secret\n${day}\t7\t2\t2\t0\t0\t0\t0\t0\t0\ntotal\t7\t2\t2\t0\t0\t0\t0\t0\t0\n`,
    )
  })
})
