import type { Db } from '@uncle-rpc/db'
import { createApiKey, hashSecret, setAccountKeySecret, updateAccountKey } from '@uncle-rpc/db/accounts'
import { registerNetwork } from '@uncle-rpc/db/chain'
import { useTestDatabase } from '@uncle-rpc/db/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openWs, post, type TestServer, startTestServer } from '../_test/server.js'

// A key's restrictions as the real server enforces them, over HTTP and at the WebSocket upgrade.

const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getUncleByBlockHashAndIndex', params: [`0x${'ab'.repeat(32)}`, '0x0'] })
const rejected = '{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"rejected due to project ID settings"}}'
const basic = (secret: string) => `Basic ${Buffer.from(`:${secret}`).toString('base64')}`

describe('key restrictions on the RPC server', () => {
  let db: Db
  let server: TestServer
  let key: string
  let ids: { accountId: number; keyId: number }
  useTestDatabase({ max: 2 }, (opened) => (db = opened.db))

  beforeAll(async () => {
    await registerNetwork(db, { name: 'mainnet', chainId: 1n })
    await registerNetwork(db, { name: 'sepolia', chainId: 11155111n })
    const created = await createApiKey(db, { plan: 'team', label: 'restricted' })
    key = created.key
    ids = { accountId: created.row.accountId, keyId: created.row.id }
    server = await startTestServer(db, { networks: [{ name: 'mainnet', confirmations: 0 }, { name: 'sepolia', confirmations: 0 }] })
  })
  afterAll(async () => {
    await server?.rpc.close()
  })

  const restrict = async (patch: Parameters<typeof updateAccountKey>[1]['patch'], secret?: string | null) => {
    await updateAccountKey(db, { ...ids, patch })
    if (secret !== undefined)
      await setAccountKeySecret(db, { ...ids, secretHash: secret === null ? null : hashSecret(secret) })
    await server.rpc.auth.refresh()
  }

  test('default: an unrestricted key answers with a CORS header for browsers; the preflight is allowed', async () => {
    await restrict({ allowedOrigins: [], allowedUserAgents: [], networks: null }, null)
    const res = await fetch(`${server.base}/mainnet/v3/${key}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://any.io' }, body: call })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    const preflight = await fetch(`${server.base}/mainnet/v3/${key}`, { method: 'OPTIONS', headers: { origin: 'https://any.io', 'access-control-request-method': 'POST' } })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization')
  })

  test('behavior: Origin allowlist: other or missing origins get 403 -32002 over HTTP and at the WebSocket upgrade', async () => {
    await restrict({ allowedOrigins: ['https://app.example.com'] })
    expect(await post(`${server.base}/mainnet/v3/${key}`, call, { origin: 'https://app.example.com' })).toMatchObject({ status: 200 })
    expect(await post(`${server.base}/mainnet/v3/${key}`, call, { origin: 'https://evil.example.com' })).toEqual({ status: 403, body: rejected })
    expect(await post(`${server.base}/mainnet/v3/${key}`, call)).toEqual({ status: 403, body: rejected })
    await expect(openWs(`${server.wsBase}/mainnet/ws/v3/${key}`, { headers: { origin: 'https://evil.example.com' } })).rejects.toMatchObject({ status: 403, body: rejected })
    const ws = await openWs(`${server.wsBase}/mainnet/ws/v3/${key}`, { headers: { origin: 'https://app.example.com' } })
    expect(await ws.send(call)).toBe('{"jsonrpc":"2.0","id":1,"result":null}')
    // Narrowed while the socket is open: its next message is refused and it is closed.
    await restrict({ allowedOrigins: ['https://other.example.com'] })
    expect(await ws.send(call)).toBe(rejected)
    await ws.close()
  })

  test('behavior: User-Agent AND secret AND network: each missing piece is refused, all together pass', async () => {
    await restrict({ allowedOrigins: [], allowedUserAgents: ['wallet/'], networks: ['mainnet'] }, 's3cret')
    const good = { 'user-agent': 'my wallet/1.2', authorization: basic('s3cret') }
    expect((await post(`${server.base}/mainnet/v3/${key}`, call, good)).status).toBe(200)
    expect(await post(`${server.base}/mainnet/v3/${key}`, call, { ...good, 'user-agent': 'curl/8' })).toEqual({ status: 403, body: rejected })
    expect(await post(`${server.base}/mainnet/v3/${key}`, call, { ...good, authorization: basic('nope') })).toEqual({ status: 403, body: rejected })
    expect(await post(`${server.base}/sepolia/v3/${key}`, call, good)).toEqual({ status: 403, body: rejected })
    await expect(openWs(`${server.wsBase}/mainnet/ws/v3/${key}`, { headers: { 'user-agent': 'my wallet/1.2' } })).rejects.toMatchObject({ status: 403 })
    const ws = await openWs(`${server.wsBase}/mainnet/ws/v3/${key}`, { headers: good })
    expect(await ws.send(call)).toBe('{"jsonrpc":"2.0","id":1,"result":null}')
    await ws.close()
  })
})
