import { createLogger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { registerNetwork } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, useTestDatabase } from '@uncle-rpc/db/testing'
import { createRpcServer, type RpcServer } from '@uncle-rpc/rpc'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type ApiUser, signUp, startTestDashboard, type TestDashboard } from './_test/client.js'

// The usage API's calls per method, from what a real RPC server counted for a dashboard key: two
// methods apart (batch entries each under its own), their sum the day's requests.

type MethodTotal = { method: string | null; requests: number; rateLimited: number }
const hash = `0x${'cd'.repeat(32)}`

describe('dashboard usage per method', () => {
  let db: Db
  let rpc: RpcServer
  let rpcBase: string
  let app: TestDashboard
  let dev: ApiUser
  useTestDatabase({ max: 4 }, (opened: OpenTestDatabase) => {
    db = opened.db
  })

  beforeAll(async () => {
    await registerNetwork(db, { name: 'mainnet', chainId: 1n })
    rpc = createRpcServer({ db, logger: createLogger({ level: 'fatal', name: 'rpc-test' }) }, { networks: [{ name: 'mainnet', confirmations: 0 }] })
    rpcBase = `http://127.0.0.1:${(await rpc.listen(0, '127.0.0.1')).port}`
    app = await startTestDashboard(db, { rpcUrl: rpcBase })
    dev = await signUp(app, 'methods@example.com')
  })
  afterAll(async () => {
    await app?.close()
    await rpc?.close()
  })

  test('behavior: a key calling two methods sees each counted apart in /api/usage', async () => {
    const created = await dev.call('POST', '/keys', { name: 'two methods' })
    expect(created.status).toBe(201)
    const { apiKey } = created.body as { apiKey: string }
    await rpc.auth.refresh()
    const send = (body: unknown) => fetch(`${rpcBase}/mainnet/v3/${apiKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const call = (id: number, method: string, params: unknown[]) => ({ jsonrpc: '2.0', id, method, params })
    expect((await send(call(1, 'eth_getUncleCountByBlockHash', [hash]))).status).toBe(200)
    expect((await send([call(2, 'eth_getUncleByBlockHashAndIndex', [hash, '0x1']), call(3, 'eth_getUncleCountByBlockHash', [hash]), call(4, 'eth_getUncleCountByBlockHash', [hash])])).status).toBe(200)
    await rpc.usage.flush()

    const usage = await dev.call('GET', '/usage')
    expect(usage.status).toBe(200)
    const methods = usage.body.methods as MethodTotal[]
    expect(methods).toEqual([
      { method: 'eth_getUncleCountByBlockHash', requests: 3, rateLimited: 0 },
      { method: 'eth_getUncleByBlockHashAndIndex', requests: 1, rateLimited: 0 },
    ])
    expect((usage.body.daily as { requests: number }[]).at(-1)?.requests).toBe(4)
    // The network filter keeps the split.
    expect((await dev.call('GET', '/usage?network=mainnet')).body.methods).toEqual(methods)
    expect((await dev.call('GET', '/usage?network=sepolia')).body.methods).toEqual([])
  })
})
