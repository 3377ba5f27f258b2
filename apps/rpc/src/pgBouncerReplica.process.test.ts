import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDb, migrateDatabase } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import {
  type CliProcess,
  describeWithFixtures,
  type PgBouncer,
  type PostgresServer,
  requireTool,
  spawnCli,
  startPgBouncer,
  startPostgresServer,
  startStreamingReplica,
} from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived, seedMainnetUncles } from './_test/seed.js'
import { startLoad } from './_test/rpcProcess.js'

// A streaming replica reached only through PgBouncer in transaction mode (DATABASE_READ_URL), the
// primary directly: the replica's reads must not fail for statements PgBouncer does not keep,
// since each failed read skips the replica until the next probe finds it well again (a flap).

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'a read replica behind PgBouncer in transaction mode', () => {
  const haveBouncer = requireTool('pgbouncer', 'pgbouncer') !== undefined
  let primary: PostgresServer
  let replica: PostgresServer
  let bouncer: PgBouncer
  let rpc: CliProcess
  let base: string
  let key: string

  beforeAll(async () => {
    if (!haveBouncer) return
    primary = await startPostgresServer()
    const url = primary.url('uncle_rpc')
    await migrateDatabase({ url })
    const primaryDb = createDb({ url, max: 2 })
    await seedMainnetUncles(primaryDb.db, 'mainnet', 8191)
    key = (await createApiKey(primaryDb.db, { plan: 'team' })).key
    await primaryDb.close()
    replica = await startStreamingReplica(primary)
    bouncer = await startPgBouncer({ upstream: { port: replica.port }, poolMode: 'transaction', poolSize: 2, ignoreStartupParameters: ['statement_timeout', 'options'] })
    const config = join(tmpdir(), `uncle-rpc-pgbouncer-replica-${process.pid}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1, rpcUrl: 'http://127.0.0.1:9/', confirmations: 0 }] }))
    rpc = spawnCli(['rpc', '--config', config, '--port', '0', '--cache-entries', '0', '--rate-limits', 'off', '--db-pool', '4', '--db-deadline-ms', '5000'], {
      env: { DATABASE_URL: url, DATABASE_READ_URL: bouncer.url('uncle_rpc'), LOG_LEVEL: 'info' },
    })
    base = (await rpc.waitFor(/rpc listening on (http:\/\/\S+?)\/v3\//, 60_000))[1]!
    await rpc.waitFor(/read replica in use/, 10_000)
  }, 120_000)

  afterAll(async () => {
    await rpc?.stop()
    await bouncer?.stop()
    await replica?.remove()
    await primary?.remove()
  })

  test.skipIf(!haveBouncer)('behavior: under load of known uncles the replica stays in use: no read fails, it is never skipped', async () => {
    const uncles = derivedUncles().slice(0, 200)
    const body = `[${uncles.map((u, i) => `{"jsonrpc":"2.0","id":${i},"method":"eth_getUncleByBlockHashAndIndex","params":["${u.blockHash}","${u.index}"]}`).join(',')}]`
    const load = startLoad(`${base}/v3/${key}`, body, { concurrency: 6, callsPerBody: uncles.length })
    await new Promise((resolve) => setTimeout(resolve, 8000))
    const result = await load.stop()
    expect(result.answered).toBeGreaterThan(10)
    expect(result.failed).toBe(0)
    expect(rpc.stderr()).not.toMatch(/read replica skipped/)
  })
})
