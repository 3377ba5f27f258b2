import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseMetrics, type Sample, sumSamples } from '@uncle-rpc/metrics'
import { type CliProcess, createTcpProxy, describeWithFixtures, spawnCli } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type DerivedUncle, derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived } from './_test/seed.js'
import { createTestEnv, openWs, post, type TestEnv } from './_test/server.js'
import { createApiKey } from '@uncle-rpc/db/accounts'

// Real `uncle-rpc rpc` processes with --metrics-port, scraped over HTTP: counters move by exactly
// the calls made. The partner is a real (synthetic) sample node, which answers null for our hashes.

const call = (id: number, blockHash: string, index: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"eth_getUncleByBlockHashAndIndex","params":["${blockHash}","${index}"]}`
const unknownHash = `0x${'ab'.repeat(32)}`

async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url)
  expect(res.status).toBe(200)
  return parseMetrics(await res.text())
}

function startRpc(args: string[], databaseUrl: string, env: Record<string, string> = {}): { rpc: CliProcess; base: Promise<string>; metrics: Promise<string> } {
  const rpc = spawnCli(['rpc', '--port', '0', '--metrics-port', '0', ...args], { env: { DATABASE_URL: databaseUrl, ...env } })
  const base = rpc.waitFor(/rpc listening on (http:\/\/\S+?)\/v3\//, 60_000).then((m) => m[1]!)
  const metrics = rpc.waitFor(/rpc metrics on (http:\/\/\S+)/, 60_000).then((m) => m[1]!)
  return { rpc, base, metrics }
}

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'uncle-rpc rpc --metrics-port', () => {
  let env: TestEnv
  let node: CliProcess
  let config: string
  let uncle: DerivedUncle

  beforeAll(async () => {
    env = await createTestEnv()
    node = spawnCli(['sample-node', '--port', '0', '--synthetic', '200'])
    const partner = (await node.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1]!
    config = join(mkdtempSync(join(tmpdir(), 'uncle-rpc-metrics-')), 'networks.json')
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1, rpcUrl: 'http://127.0.0.1:1', confirmations: 0, partnerUrl: partner }] }))
    uncle = derivedUncles()[0]!
  })

  afterAll(async () => {
    await node?.stop()
    await env?.close()
  })

  test('default: requests by outcome and transport, latency, cache, rate limits, failover, WebSockets, /ready', async () => {
    const limited = (await createApiKey(env.db, { plan: 'core', dailyLimit: 2 })).key
    const growth = (await createApiKey(env.db, { plan: 'growth', failover: true })).key
    const { rpc, base, metrics } = startRpc(['--config', config], env.database.url)
    try {
      const url = `${await base}/v3/`
      const before = await scrape(await metrics)
      const count = (samples: Sample[], outcome: string, transport = 'http') =>
        sumSamples(samples, 'uncle_rpc_requests_total', { network: 'mainnet', transport, outcome })

      for (let i = 0; i < 3; i++) expect((await post(url + env.key, call(i, uncle.blockHash, uncle.index))).body).toContain('"result":{')
      for (let i = 0; i < 2; i++) expect((await post(url + env.key, call(i, unknownHash, '0x0'))).body).toContain('"result":null')
      expect((await post(url + env.key, call(9, '0x12', '0x0'))).body).toContain('"error":{"code":-32602')
      // A batch: one found, one null, one parse-level invalid entry.
      await post(url + env.key, `[${call(1, uncle.blockHash, uncle.index)},${call(2, unknownHash, '0x1')},{"jsonrpc":"2.0","id":3}]`)
      const refused = []
      for (let i = 0; i < 4; i++) refused.push((await post(url + limited, call(i, uncle.blockHash, uncle.index))).status)
      expect(refused).toEqual([200, 200, 429, 429])
      const forwarded = await post(url + growth, call(1, unknownHash, '0x0'))
      expect(forwarded.body).toContain('"result":null')
      const ws = await openWs(`${(await base).replace('http', 'ws')}/ws/v3/${env.key}`)
      expect(await ws.send(call(5, uncle.blockHash, uncle.index))).toContain('"result":{')
      const during = await scrape(await metrics)
      await ws.close()

      const delta = (name: string, where: Record<string, string> = {}) => sumSamples(during, name, where) - sumSamples(before, name, where)
      expect(count(during, 'found') - count(before, 'found')).toBe(3 + 1 + 2)
      expect(count(during, 'null') - count(before, 'null')).toBe(2 + 1)
      expect(count(during, 'error') - count(before, 'error')).toBe(1 + 1)
      expect(count(during, 'rate_limited') - count(before, 'rate_limited')).toBe(2)
      expect(count(during, 'forwarded') - count(before, 'forwarded')).toBe(1)
      expect(count(during, 'found', 'ws') - count(before, 'found', 'ws')).toBe(1)
      expect(delta('uncle_rpc_rate_limited_total', { plan: 'core' })).toBe(2)
      expect(delta('uncle_rpc_failover_forwarded_total', { network: 'mainnet' })).toBe(1)
      // Messages: 3 + 2 + 1 + 1 batch + 4 (two refused) + 1 forwarded over HTTP, 1 over WebSocket.
      expect(delta('uncle_rpc_request_duration_seconds_count', { transport: 'http' })).toBe(12)
      expect(delta('uncle_rpc_request_duration_seconds_count', { transport: 'ws' })).toBe(1)
      expect(delta('uncle_rpc_request_duration_seconds_bucket', { transport: 'http', le: '+Inf' })).toBe(12)
      expect(delta('uncle_rpc_request_duration_seconds_sum')).toBeGreaterThan(0)
      // Lookups: 3 + 1 (batch) + 2 admitted + 1 (ws) of the known uncle, 2 + 1 + 1 of unknown hashes.
      expect(delta('uncle_rpc_cache_lookups_total')).toBe(11)
      expect(delta('uncle_rpc_cache_lookups_total', { result: 'hit' })).toBe(6)
      // The known uncle's one miss went to Postgres; the 4 unknown hashes were answered by the null
      // filter (no block with uncles has them) without a read.
      expect(delta('uncle_rpc_db_read_lookups_sum')).toBe(1)
      const statements = delta('uncle_rpc_db_read_duration_seconds_count', { result: 'ok' })
      expect(statements).toBe(1)
      expect(delta('uncle_rpc_db_read_lookups_count')).toBe(statements)
      expect(delta('uncle_rpc_db_read_duration_seconds_count', { result: 'failed' })).toBe(0)
      expect(sumSamples(during, 'uncle_rpc_websocket_connections')).toBe(1)
      expect(sumSamples(during, 'uncle_rpc_db_pool_connections', { state: 'total' })).toBeGreaterThan(0)
      expect(sumSamples(during, 'uncle_rpc_db_pool_connections', { state: 'waiting' })).toBe(0)
      expect(sumSamples(during, 'uncle_rpc_partner_circuit_open', { network: 'mainnet' })).toBe(0)
      expect(sumSamples(during, 'uncle_rpc_cache_entries', { cache: 'by_hash' })).toBe(1)
      expect(sumSamples(during, 'uncle_rpc_cache_entries', { cache: 'by_number' })).toBe(0)
      expect(during.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true)
      expect(during.some((s) => s.name === 'nodejs_eventloop_lag_p99_seconds')).toBe(true)
      expect(during.every((s) => !JSON.stringify(s.labels).includes(env.key))).toBe(true)

      // An answer by block number is held by the other cache, and counted there.
      const byNumber = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getUncleByBlockNumberAndIndex', params: [`0x${uncle.blockNumber.toString(16)}`, uncle.index] })
      expect((await post(url + env.key, byNumber)).body).toContain('"result":{')
      const after = await scrape(await metrics)
      expect(sumSamples(after, 'uncle_rpc_cache_entries', { cache: 'by_number' })).toBe(1)
      expect(sumSamples(after, 'uncle_rpc_cache_entries', { cache: 'by_hash' })).toBe(1)
      const calls = (samples: Sample[], method: string) => sumSamples(samples, 'uncle_rpc_method_calls_total', { network: 'mainnet', method })
      expect(calls(after, 'eth_getUncleByBlockNumberAndIndex') - calls(during, 'eth_getUncleByBlockNumberAndIndex')).toBe(1)
      expect(calls(after, 'eth_getUncleByBlockHashAndIndex')).toBe(calls(during, 'eth_getUncleByBlockHashAndIndex'))
      expect(calls(during, 'eth_getUncleByBlockHashAndIndex') - calls(before, 'eth_getUncleByBlockHashAndIndex')).toBeGreaterThanOrEqual(3 + 1 + 1)

      const ready = await fetch(`${await base}/ready`)
      expect(ready.status).toBe(200)
      expect(await ready.json()).toEqual({ status: 'ready' })
      const adminReady = await fetch((await metrics).replace('/metrics', '/ready'))
      expect(adminReady.status).toBe(200)
      expect(await adminReady.json()).toEqual({
        status: 'ready',
        degraded: [],
        networks: { mainnet: '8187' },
        checks: { postgres: 'ok', redis: 'ok', partners: { mainnet: 'closed' } },
        reasons: [],
      })
      expect((await fetch((await metrics).replace('/metrics', '/health'))).status).toBe(200)
      expect((await fetch((await metrics).replace('/metrics', '/other'))).status).toBe(404)
    } finally {
      expect(await rpc.stop()).toBe(0)
    }
  })

  test('behavior: with --workers 2 the primary serves the sum of its workers', async () => {
    const { rpc, base, metrics } = startRpc(['--config', config, '--workers', '2', '--rate-limits', 'off'], env.database.url)
    try {
      const url = `${await base}/v3/${env.key}`
      await metrics
      const before = await scrape(await metrics)
      // Note: new connections each time (fetch without keep-alive reuse is not guaranteed), so both workers serve.
      await Promise.all(Array.from({ length: 8 }, (_, i) => post(url, call(i, uncle.blockHash, uncle.index))))
      const after = await scrape(await metrics)
      const found = (s: Sample[]) => sumSamples(s, 'uncle_rpc_requests_total', { outcome: 'found' })
      expect(found(after) - found(before)).toBe(8)
      expect(sumSamples(after, 'uncle_rpc_partner_circuit_open', { network: 'mainnet' })).toBe(0)
      expect(after.some((s) => s.name === 'process_resident_memory_bytes')).toBe(true)
      // Rate limits off: no Redis, so no Redis gauge to alert on.
      expect(after.some((s) => s.name === 'uncle_rpc_redis_up')).toBe(false)
    } finally {
      expect(await rpc.stop()).toBe(0)
    }
  })

  test('behavior: uncle_rpc_redis_up is 0 while Redis is unreachable and 1 again once it answers', async () => {
    const proxy = await createTcpProxy({ host: '127.0.0.1', port: 6379 })
    const { rpc, metrics } = startRpc(['--config', config], env.database.url, { REDIS_URL: `redis://127.0.0.1:${proxy.port}` })
    try {
      const redisUp = async () => sumSamples(await scrape(await metrics), 'uncle_rpc_redis_up')
      /** Scrapes until the gauge reads `want` (the client notices a cut connection on its own). */
      const until = async (want: number) => {
        for (let i = 0; i < 200 && (await redisUp()) !== want; i++) await new Promise((resolve) => setTimeout(resolve, 50))
        return redisUp()
      }
      expect(await until(1)).toBe(1)
      await proxy.cut()
      expect(await until(0)).toBe(0)
      await proxy.restore()
      expect(await until(1)).toBe(1)
    } finally {
      expect(await rpc.stop()).toBe(0)
      await proxy.close()
    }
  })
})
