import { createLogger } from '@uncle-rpc/config'
import { createDb } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { registerNetwork } from '@uncle-rpc/db/chain'
import { openTestDatabase } from '@uncle-rpc/db/testing'
import { expect, test } from 'vitest'
import { post } from '../_test/server.js'
import { createRpcServer } from '../server.js'

// /ready against real parts: a real database, a Redis and a partner that are not there.

const logger = createLogger({ level: 'fatal', name: 'readiness-test' })
const call = `{"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockHashAndIndex","params":["0x${'ab'.repeat(32)}","0x0"]}`

test('behavior: 503 naming what is degraded: no indexed network, Redis unreachable, partner circuit open', async () => {
  const { db, close } = await openTestDatabase({ max: 2 })
  const rpc = createRpcServer(
    { db, logger },
    {
      networks: [{ name: 'mainnet', confirmations: 0, partnerUrl: 'http://127.0.0.1:1/' }],
      rateLimits: { redisUrl: 'redis://127.0.0.1:1', prefix: 'readiness-test', commandTimeoutMs: 50 },
      partner: { failureThreshold: 1, cooldownMs: 60_000, timeoutMs: 500 },
    },
  )
  try {
    await registerNetwork(db, { name: 'mainnet', chainId: 1n })
    const { key } = await createApiKey(db, { plan: 'growth', failover: true })
    const { port } = await rpc.listen(0, '127.0.0.1')
    const base = `http://127.0.0.1:${port}`
    expect((await post(`${base}/v3/${key}`, call)).body).toContain('partner is unavailable')
    const ready = await fetch(`${base}/ready`)
    expect(ready.status).toBe(503)
    expect(await ready.json()).toEqual({ status: 'not ready', degraded: ['index', 'redis', 'partner:mainnet'] })
    const report = await rpc.readiness()
    expect(report.details.checks).toEqual({ postgres: 'ok', redis: 'down', partners: { mainnet: 'open' } })
    expect(report.details.reasons.join('\n')).toMatch(/no network has indexed blocks[\s\S]*redis: unreachable[\s\S]*partner:mainnet: circuit open/)
  } finally {
    await rpc.close()
    await close()
  }
})

test('behavior: 503 "postgres: database unreachable" when the database does not answer', async () => {
  const { db, close } = createDb({ url: 'postgres://postgres@127.0.0.1:1/none', max: 1 })
  const rpc = createRpcServer({ db, logger, keyStore: { find: async () => null, all: async () => [], touch: async () => undefined } }, { networks: [{ name: 'mainnet', confirmations: 0 }] })
  try {
    const { port } = await rpc.listen(0, '127.0.0.1')
    const ready = await fetch(`http://127.0.0.1:${port}/ready`)
    expect(ready.status).toBe(503)
    const body = await ready.text()
    expect(JSON.parse(body)).toEqual({ status: 'not ready', degraded: ['postgres'] })
    // Note: no host, port, database name or error text on the public port.
    expect(body).not.toMatch(/127\.0\.0\.1|:1\b|none|ECONNREFUSED/)
    expect((await rpc.readiness()).details.reasons.join('\n')).toMatch(/postgres: .*ECONNREFUSED/)
  } finally {
    await rpc.close()
    await close()
  }
})
