import type { Db } from '@uncle-rpc/db'
import { createApiKey, hashSecret, listUsage, revokeApiKey, setAccountKeySecret, updateAccountKey, usageHourly } from '@uncle-rpc/db/accounts'
import { registerNetwork } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, useTestDatabase } from '@uncle-rpc/db/testing'
import { runCli } from '@uncle-rpc/testing'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openWs, post, type TestServer, startTestServer } from '../_test/server.js'

// Requests of a known key refused before they are read (401 revoked, 403 restrictions) are counted
// in usage per key and reason, over HTTP and at the WebSocket upgrade, and shown by `keys usage`.

const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getUncleByBlockHashAndIndex', params: [`0x${'ab'.repeat(32)}`, '0x0'] })
const basic = (secret: string) => `Basic ${Buffer.from(`:${secret}`).toString('base64')}`

describe('refused requests in usage', () => {
  let database: OpenTestDatabase
  let db: Db
  let server: TestServer
  useTestDatabase({ max: 2 }, (opened) => {
    database = opened
    db = opened.db
  })

  beforeAll(async () => {
    await registerNetwork(db, { name: 'mainnet', chainId: 1n })
    await registerNetwork(db, { name: 'sepolia', chainId: 11155111n })
    server = await startTestServer(db, { networks: [{ name: 'mainnet', confirmations: 0 }, { name: 'sepolia', confirmations: 0 }] })
  })
  afterAll(async () => {
    await server?.rpc.close()
  })

  /** A new key with these restrictions, loaded by the server. */
  async function restrictedKey(patch: Parameters<typeof updateAccountKey>[1]['patch'], secret?: string) {
    const { key, row } = await createApiKey(db, { plan: 'team', label: 'refusals' })
    const ids = { accountId: row.accountId, keyId: row.id }
    await updateAccountKey(db, { ...ids, patch })
    if (secret !== undefined) await setAccountKeySecret(db, { ...ids, secretHash: hashSecret(secret) })
    await server.rpc.auth.refresh()
    return { key, id: row.id, accountId: row.accountId }
  }

  /** The key's usage_daily row of today (written by a flush now). */
  async function today(key: string) {
    await server.rpc.usage.flush()
    const [row] = (await listUsage(db, { keyHash: hashSecret(key), days: 1 })) ?? []
    return row
  }

  test('behavior: 403s of an Origin allowlist are counted per key as refused_origin, apart from requests and errors', async () => {
    const { key } = await restrictedKey({ allowedOrigins: ['https://app.example.com'] })
    const url = `${server.base}/mainnet/v3/${key}`
    for (let i = 0; i < 3; i++) expect((await post(url, call, { origin: 'https://app.example.com' })).status).toBe(200)
    for (let i = 0; i < 4; i++) expect((await post(url, call, { origin: 'https://evil.example.com' })).status).toBe(403)
    expect((await post(url, call)).status).toBe(403)
    expect(await today(key)).toMatchObject({
      requests: 3,
      errors: 0,
      rateLimited: 0,
      refusedOrigin: 5,
      refusedRevoked: 0,
      refusedNetwork: 0,
      refusedUserAgent: 0,
      refusedSecret: 0,
    })
  })

  test('behavior: each restriction is its own reason; the hourly row names the network asked for', async () => {
    const { key, id } = await restrictedKey({ allowedUserAgents: ['wallet/'], networks: ['mainnet'] }, 's3cret')
    const good = { 'user-agent': 'my wallet/1.2', authorization: basic('s3cret') }
    expect((await post(`${server.base}/mainnet/v3/${key}`, call, good)).status).toBe(200)
    expect((await post(`${server.base}/sepolia/v3/${key}`, call, good)).status).toBe(403)
    expect((await post(`${server.base}/mainnet/v3/${key}`, call, { ...good, 'user-agent': 'curl/8' })).status).toBe(403)
    expect((await post(`${server.base}/mainnet/v3/${key}`, call, { ...good, authorization: basic('wrong') })).status).toBe(403)
    expect((await post(`${server.base}/mainnet/v3/${key}`, call, { 'user-agent': 'my wallet/1.2' })).status).toBe(403)
    expect(await today(key)).toMatchObject({ requests: 1, refusedNetwork: 1, refusedUserAgent: 1, refusedSecret: 2, refusedOrigin: 0 })
    const hourly = await db
      .select({ network: usageHourly.network, requests: usageHourly.requests, refusedNetwork: usageHourly.refusedNetwork, refusedSecret: usageHourly.refusedSecret })
      .from(usageHourly)
      .where(eq(usageHourly.keyId, id))
      .orderBy(usageHourly.network)
    expect(hourly).toEqual([
      { network: 'mainnet', requests: 1, refusedNetwork: 0, refusedSecret: 2 },
      { network: 'sepolia', requests: 0, refusedNetwork: 1, refusedSecret: 0 },
    ])
  })

  test('behavior: a revoked key is counted as refused_revoked over HTTP, at the WebSocket upgrade and on an open socket', async () => {
    const { key } = await restrictedKey({})
    const ws = await openWs(`${server.wsBase}/mainnet/ws/v3/${key}`)
    expect(await ws.send(call)).toBe('{"jsonrpc":"2.0","id":1,"result":null}')
    await revokeApiKey(db, { keyHash: hashSecret(key) })
    await server.rpc.auth.refresh()
    expect((await ws.send(call)).includes('invalid project id')).toBe(true)
    await ws.close()
    expect((await post(`${server.base}/mainnet/v3/${key}`, call)).status).toBe(401)
    await expect(openWs(`${server.wsBase}/mainnet/ws/v3/${key}`)).rejects.toMatchObject({ status: 401 })
    expect(await today(key)).toMatchObject({ requests: 1, refusedRevoked: 3 })
  })

  test('behavior: WebSocket upgrades refused by a restriction are counted, and messages refused after the key changed', async () => {
    const { key, id, accountId } = await restrictedKey({ allowedOrigins: ['https://app.example.com'] })
    await expect(openWs(`${server.wsBase}/mainnet/ws/v3/${key}`, { headers: { origin: 'https://evil.example.com' } })).rejects.toMatchObject({ status: 403 })
    const ws = await openWs(`${server.wsBase}/mainnet/ws/v3/${key}`, { headers: { origin: 'https://app.example.com' } })
    expect(await ws.send(call)).toBe('{"jsonrpc":"2.0","id":1,"result":null}')
    await updateAccountKey(db, { accountId, keyId: id, patch: { allowedOrigins: ['https://other.example.com'] } })
    await server.rpc.auth.refresh()
    expect(await ws.send(call)).toContain('rejected due to project ID settings')
    await ws.close()
    expect(await today(key)).toMatchObject({ requests: 1, refusedOrigin: 2 })
  })

  test('behavior: a 401 for an unknown or missing key is counted on no key', async () => {
    const before = await totalRefused()
    expect((await post(`${server.base}/mainnet/v3/${'0'.repeat(32)}`, call)).status).toBe(401)
    expect((await post(`${server.base}/mainnet/v3/`, call)).status).toBe(401)
    await server.rpc.usage.flush()
    expect(await totalRefused()).toBe(before)
  })

  test('behavior: `uncle-rpc keys usage` shows the refused requests per reason', async () => {
    const { key } = await restrictedKey({ allowedOrigins: ['https://app.example.com'] })
    expect((await post(`${server.base}/mainnet/v3/${key}`, call, { origin: 'https://app.example.com' })).status).toBe(200)
    expect((await post(`${server.base}/mainnet/v3/${key}`, call, { origin: 'https://evil.example.com' })).status).toBe(403)
    await server.rpc.usage.flush()
    const { code, stdout } = await runCli(['keys', 'usage', key, '--days', '1'], { env: { DATABASE_URL: database.url } })
    expect(code).toBe(0)
    const day = new Date().toISOString().slice(0, 10)
    expect(stdout).toBe(
      'day\trequests\terrors\tforwarded\trate_limited\trefused_revoked\trefused_network\trefused_origin\trefused_user_agent\trefused_secret\n' +
        `${day}\t1\t0\t0\t0\t0\t0\t1\t0\t0\ntotal\t1\t0\t0\t0\t0\t0\t1\t0\t0\n`,
    )
  }, 30_000)

  async function totalRefused(): Promise<number> {
    const { rows } = await db.execute<{ n: string }>(
      sql`select coalesce(sum(refused_revoked + refused_network + refused_origin + refused_user_agent + refused_secret), 0)::text as n from usage_daily`,
    )
    return Number(rows[0]?.n ?? 0)
  }
})
