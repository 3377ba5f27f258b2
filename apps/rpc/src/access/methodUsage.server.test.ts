import type { Db } from '@uncle-rpc/db'
import { addUsage, createApiKey, hashSecret, listMethodUsage, listUsage, zeroUsageCounts } from '@uncle-rpc/db/accounts'
import { registerNetwork } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, useTestDatabase } from '@uncle-rpc/db/testing'
import { runCli } from '@uncle-rpc/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openWs, post, type TestServer, startTestServer } from '../_test/server.js'

// Usage per JSON-RPC method: a key's calls are counted under the method each names (batch entries
// one by one, over HTTP and WebSocket), calls naming no served method under "(other)", and the
// per-method counts sum to the key's totals; `keys usage --by-method` shows them.

const hash = `0x${'ab'.repeat(32)}`
const request = (id: number, method: string, params: unknown[]) => ({ jsonrpc: '2.0', id, method, params })
const byHash = (id: number) => request(id, 'eth_getUncleByBlockHashAndIndex', [hash, '0x0'])
const countByHash = (id: number) => request(id, 'eth_getUncleCountByBlockHash', [hash])

describe('usage per method', () => {
  let database: OpenTestDatabase
  let db: Db
  let server: TestServer
  useTestDatabase({ max: 2 }, (opened) => {
    database = opened
    db = opened.db
  })

  beforeAll(async () => {
    await registerNetwork(db, { name: 'mainnet', chainId: 1n })
    server = await startTestServer(db)
  })
  afterAll(async () => {
    await server?.rpc.close()
  })

  test('behavior: a key calling two methods has each counted apart; batches count each call under its method; totals unchanged', async () => {
    const { key } = await createApiKey(db, { plan: 'team', label: 'methods' })
    await server.rpc.auth.refresh()
    const url = `${server.base}/mainnet/v3/${key}`
    for (let i = 0; i < 2; i++) expect((await post(url, JSON.stringify(byHash(i)))).status).toBe(200)
    expect((await post(url, JSON.stringify(countByHash(3)))).status).toBe(200)
    // A batch of 4: one by hash, two counts, one method not served here.
    const batch = [byHash(4), countByHash(5), countByHash(6), request(7, 'eth_chainIdz', [])]
    const answered = await post(url, JSON.stringify(batch))
    expect(answered.status).toBe(200)
    expect(JSON.parse(answered.body)).toHaveLength(4)
    // A batch of one method, and a body that does not parse (one call naming no method).
    expect((await post(url, JSON.stringify([countByHash(8), countByHash(9)]))).status).toBe(200)
    expect((await post(url, '{"jsonrpc":')).status).toBe(200)
    // Over WebSocket too.
    const ws = await openWs(`${server.wsBase}/mainnet/ws/v3/${key}`)
    expect(await ws.send(JSON.stringify(countByHash(10)))).toBe('{"jsonrpc":"2.0","id":10,"result":null}')
    await ws.close()

    await server.rpc.usage.flush()
    const [day] = (await listUsage(db, { keyHash: hashSecret(key), days: 1 })) ?? []
    expect(day).toMatchObject({ requests: 11, errors: 2, rateLimited: 0 })
    const methods = (await listMethodUsage(db, { keyHash: hashSecret(key), days: 1 })) ?? []
    expect(methods.map(({ method, requests, rateLimited }) => ({ method, requests, rateLimited }))).toEqual([
      { method: '(other)', requests: 2, rateLimited: 0 },
      { method: 'eth_getUncleByBlockHashAndIndex', requests: 3, rateLimited: 0 },
      { method: 'eth_getUncleCountByBlockHash', requests: 6, rateLimited: 0 },
    ])
    expect(methods.reduce((n, m) => n + m.requests, 0)).toBe(day?.requests)

    const env = { env: { DATABASE_URL: database.url } }
    const { code, stdout } = await runCli(['keys', 'usage', key, '--days', '1', '--by-method'], env)
    expect(code).toBe(0)
    const today = day!.day
    expect(stdout).toBe(
      [
        'day\tmethod\trequests\trate_limited',
        `${today}\t(other)\t2\t0`,
        `${today}\teth_getUncleByBlockHashAndIndex\t3\t0`,
        `${today}\teth_getUncleCountByBlockHash\t6\t0`,
        'total\t(other)\t2\t0',
        'total\teth_getUncleByBlockHashAndIndex\t3\t0',
        'total\teth_getUncleCountByBlockHash\t6\t0',
        '',
      ].join('\n'),
    )
    // Without the flag, the output is as before: the day's totals.
    const plain = await runCli(['keys', 'usage', key, '--days', '1'], env)
    expect(plain.stdout.split('\n')[1]).toBe(`${today}\t11\t2\t0\t0\t0\t0\t0\t0\t0`)
  })

  test('behavior: calls counted before usage was kept per method show as "(not recorded)", not under a method', async () => {
    const { key, row } = await createApiKey(db, { plan: 'team', label: 'before methods' })
    const today = new Date().toISOString().slice(0, 10)
    // A usage_daily row without usage_methods rows: what the migration leaves of earlier days.
    await addUsage(db, [{ keyId: row.id, day: today, ...zeroUsageCounts(), requests: 5, errors: 1, rateLimited: 1, refusedOrigin: 2 }])
    const { code, stdout } = await runCli(['keys', 'usage', key, '--days', '1', '--by-method'], { env: { DATABASE_URL: database.url } })
    expect(code).toBe(0)
    expect(stdout).toBe(`day\tmethod\trequests\trate_limited\n${today}\t(not recorded)\t5\t1\ntotal\t(not recorded)\t5\t1\n`)
  })
})
