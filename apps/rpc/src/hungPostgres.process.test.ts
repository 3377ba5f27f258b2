import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDb, migrateDatabase } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { type CliProcess, describeWithFixtures, type PostgresServer, spawnCli, startPostgresServer } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived, seedMainnetUncles } from './_test/seed.js'
import { openWs } from './_test/server.js'

// A hung database, not a crashed one: a private Postgres frozen with SIGSTOP (postmaster and every
// backend: connections stay open, nothing answers) under a real `uncle-rpc rpc`. Readiness and
// keys the process cannot check must answer within their deadlines; cached answers keep flowing.
// The bounds are the behaviour under test, with margins for a loaded 2-core machine.

const call = (hash: string, index: string) => `{"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockHashAndIndex","params":["${hash}","${index}"]}`

type Timed = { status: number; headers: Headers; body: string; ms: number }

/** A request that must answer within `withinMs` (else it throws: a hang fails the test). */
async function timed(url: string, init: RequestInit, withinMs: number): Promise<Timed> {
  const started = performance.now()
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(withinMs) })
  const body = await res.text()
  return { status: res.status, headers: res.headers, body, ms: performance.now() - started }
}

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'a frozen Postgres under a real rpc process', () => {
  let postgres: PostgresServer
  let rpc: CliProcess
  let base: string
  let admin: string
  let key: string
  const uncles = derivedUncles()
  const cached = uncles[0]!
  const post = (k: string, body: string, withinMs: number) =>
    timed(`${base}/v3/${k}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }, withinMs)

  beforeAll(async () => {
    postgres = await startPostgresServer()
    const url = postgres.url('uncle_rpc')
    await migrateDatabase({ url })
    const { db, close } = createDb({ url, max: 2 })
    await seedMainnetUncles(db, 'mainnet', 2999)
    key = (await createApiKey(db, { plan: 'team' })).key
    await close()
    const config = join(tmpdir(), `uncle-rpc-hung-${process.pid}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1, rpcUrl: 'http://127.0.0.1:9/', confirmations: 0 }] }))
    rpc = spawnCli(['rpc', '--config', config, '--port', '0', '--metrics-port', '0', '--rate-limits', 'off'], { env: { DATABASE_URL: url } })
    base = (await rpc.waitFor(/rpc listening on (http:\/\/\S+?)\/v3\//, 60_000))[1]!
    admin = (await rpc.waitFor(/rpc metrics on (http:\/\/\S+?)\/metrics/, 60_000))[1]!
  }, 120_000)

  afterAll(async () => {
    postgres?.thaw()
    await rpc?.stop()
    await postgres?.remove()
  })

  test('behavior: /ready 503 naming only "postgres", unknown keys 503 + Retry-After, cached answers flow; all back after the thaw', async () => {
    const warm = await post(key, call(cached.blockHash, cached.index), 5000)
    expect(warm.body).toContain(`"hash":"`)
    expect((await timed(`${base}/ready`, {}, 5000)).status).toBe(200)

    postgres.freeze()
    try {
      const [ready, stranger, cachedAgain, unknownHash, adminReady, adminHealth] = await Promise.all([
        timed(`${base}/ready`, {}, 3000),
        post(randomBytes(16).toString('hex'), call(cached.blockHash, cached.index), 3000),
        post(key, call(cached.blockHash, cached.index), 1000),
        post(key, call(`0x${'ab'.repeat(32)}`, '0x0'), 3000),
        timed(`${admin}/ready`, {}, 3000),
        timed(`${admin}/health`, {}, 1000),
      ])
      // Public readiness: not ready, what is degraded by name, nothing about the server.
      expect(ready.status).toBe(503)
      expect(JSON.parse(ready.body)).toEqual({ status: 'not ready', degraded: ['postgres'] })
      // A key the process has never seen cannot be checked: a clear, retryable error, not a 401.
      expect(stranger.status).toBe(503)
      expect(stranger.headers.get('retry-after')).toBe('1')
      expect(JSON.parse(stranger.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32603 } })
      // Over WebSocket the upgrade is refused the same way.
      const refused = await openWs(`${base.replace('http', 'ws')}/ws/v3/${randomBytes(16).toString('hex')}`).then(
        () => ({ status: 101 }),
        (error: { status?: number }) => error,
      )
      expect(refused.status).toBe(503)
      expect(cachedAgain.status).toBe(200)
      expect(cachedAgain.body).toContain(`"hash":"`)
      // An unknown hash: null from the null filter while it is current, else the index-unavailable error; never a hang.
      expect(unknownHash.status).toBe(200)
      expect(unknownHash.body).toMatch(/"result":null|"error"/)
      // The admin port has the details, and answers its own /health.
      expect(adminHealth.status).toBe(200)
      expect(adminReady.status).toBe(503)
      expect(JSON.parse(adminReady.body)).toMatchObject({ status: 'not ready', degraded: ['postgres'], checks: { postgres: 'down' } })
    } finally {
      postgres.thaw()
    }

    // Back within seconds: a hash not cached answers again, /ready is 200 again.
    const deadline = Date.now() + 10_000
    let fresh: Timed | undefined
    const other = uncles[5]!
    while (Date.now() < deadline) {
      fresh = await post(key, call(other.blockHash, other.index), 5000).catch(() => undefined)
      if (fresh?.body.includes(`"hash":"`)) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(fresh?.body).toContain(`"hash":"`)
    expect((await timed(`${base}/ready`, {}, 5000)).status).toBe(200)
  }, 60_000)
})
