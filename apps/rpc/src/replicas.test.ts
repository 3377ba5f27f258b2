import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDb, type Db, migrateDatabase } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import {
  type CliProcess,
  describeWithFixtures,
  type PostgresServer,
  spawnCli,
  startPostgresServer,
  startStreamingReplica,
} from '@uncle-rpc/testing'
import { parseMetrics, type Sample } from '@uncle-rpc/metrics'
import { sleep } from '@uncle-rpc/process'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { type DerivedUncle, derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived, seedMainnetUncles } from './_test/seed.js'
import { rawRequest } from './_test/server.js'

// Read replicas with real servers: a private primary and a streaming replica of it (initdb,
// pg_basebackup -R, each the test's own process), and a real `uncle-rpc rpc` reading through
// DATABASE_READ_URL. Pausing the replica's WAL replay makes it lag on demand: a row written on
// the primary is then missing on the replica, which shows where each answer came from.

const maxLagMs = 2000
const call = (u: DerivedUncle) =>
  `{"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockHashAndIndex","params":["${u.blockHash}","${u.index}"]}`

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'read replicas (a real primary, streaming replica and rpc process)', () => {
  let primary: PostgresServer
  let replica: PostgresServer
  let primaryDb: { db: Db; close: () => Promise<void> }
  let replicaDb: { db: Db; close: () => Promise<void> }
  let rpc: CliProcess
  let base: string
  let metricsUrl: string
  let key: string
  const uncles = derivedUncles()
  const at = (block: number) => uncles.find((u) => u.blockNumber >= block)!
  const ask = async (u: DerivedUncle) => {
    const { status, body } = await rawRequest(`${base}/v3/${key}`, { headers: { 'content-type': 'application/json' }, body: call(u) })
    expect(status).toBe(200)
    return body.includes('"result":null') ? 'null' : body.includes(`"hash":"`) ? 'found' : body
  }
  /** Polls until `u` is answered as `want` (the answer changes once a probe sees the replica's state); fails after `timeoutMs`. */
  const until = (u: DerivedUncle, want: string, timeoutMs = 10_000) =>
    vi.waitFor(async () => {
      const got = await ask(u)
      expect(got).toBe(want)
      return got
    }, { timeout: timeoutMs, interval: 50 })
  /** The replica gauges of one scrape (the alert rules read them). */
  const gauges = async () => {
    const samples: Sample[] = parseMetrics(await (await fetch(metricsUrl)).text())
    const one = (name: string) => samples.find((s) => s.name === name && s.labels['replica']?.endsWith('/uncle_rpc'))?.value
    return {
      usable: one('uncle_rpc_db_replica_usable'),
      lagSeconds: one('uncle_rpc_db_replica_lag_seconds'),
      replicating: one('uncle_rpc_db_replica_replicating'),
    }
  }

  beforeAll(async () => {
    primary = await startPostgresServer()
    const url = primary.url('uncle_rpc')
    await migrateDatabase({ url })
    primaryDb = createDb({ url, max: 2 })
    await seedMainnetUncles(primaryDb.db, 'mainnet', 2999)
    key = (await createApiKey(primaryDb.db, { plan: 'team' })).key
    replica = await startStreamingReplica(primary)
    replicaDb = createDb({ url: replica.url('uncle_rpc'), max: 1 })
    const config = join(tmpdir(), `uncle-rpc-replicas-${process.pid}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1, rpcUrl: 'http://127.0.0.1:9/', confirmations: 0 }] }))
    rpc = spawnCli(['rpc', '--config', config, '--port', '0', '--cache-entries', '0', '--rate-limits', 'off', '--db-deadline-ms', '5000', '--replica-max-lag-ms', String(maxLagMs), '--metrics-port', '0'], {
      env: { DATABASE_URL: url, DATABASE_READ_URL: replica.url('uncle_rpc'), LOG_LEVEL: 'info' },
    })
    base = (await rpc.waitFor(/rpc listening on (http:\/\/\S+?)\/v3\//, 60_000))[1]!
    metricsUrl = (await rpc.waitFor(/rpc metrics on (http:\/\/\S+)/, 60_000))[1]!
  }, 120_000)

  afterAll(async () => {
    await rpc?.stop()
    await Promise.all([primaryDb?.close(), replicaDb?.close()])
    await replica?.remove()
    await primary?.remove()
  })

  test('default: answers come from the replica; a lagging one is skipped, and used again once it caught up', async () => {
    expect(await ask(at(100))).toBe('found')
    expect((await gauges()).usable).toBe(1)
    await replicaDb.db.execute(sql`select pg_wal_replay_pause()`)
    await seedMainnetUncles(primaryDb.db, 'mainnet', 4999)
    const late = at(3000)
    // The replica does not have the new rows yet and is not yet past the bound: it answered.
    expect(await ask(late)).toBe('null')
    // Past the bound it is skipped: the primary answers.
    expect(await until(late, 'found')).toBe('found')
    expect(rpc.stdout() + rpc.stderr()).toContain('read replica skipped')
    const lagging = await gauges()
    expect(lagging.usable).toBe(0)
    expect(lagging.lagSeconds).toBeGreaterThan(maxLagMs / 1000)

    await replicaDb.db.execute(sql`select pg_wal_replay_resume()`)
    // An idle primary (nothing written for several bounds) must not make the replica look late.
    await sleep(2 * maxLagMs)
    await replicaDb.db.execute(sql`select pg_wal_replay_pause()`)
    await seedMainnetUncles(primaryDb.db, 'mainnet', 8191)
    expect(await ask(at(5000))).toBe('null')
    await replicaDb.db.execute(sql`select pg_wal_replay_resume()`)
    expect(await until(at(5000), 'found')).toBe('found')
    expect((await gauges()).usable).toBe(1)
  })

  test('behavior: the replica stopped under load: every request is answered, then by the primary', async () => {
    const targets = uncles.filter((u) => u.blockNumber < 8000).slice(0, 200)
    let stopped = false
    const load = (async () => {
      const outcomes: string[] = []
      for (let round = 0; round < 40 && !(stopped && round > 20); round++)
        outcomes.push(...(await Promise.all(targets.slice(0, 20).map((u) => ask(u)))))
      return outcomes
    })()
    await sleep(200)
    await replica.stop('SIGKILL')
    stopped = true
    try {
      const outcomes = await load
      expect(outcomes.length).toBeGreaterThan(400)
      expect(outcomes.filter((o) => o !== 'found')).toEqual([])
      expect(await ask(at(7000))).toBe('found')
      // Not answering (a read failed, or a probe): unusable, and no lag or replication to report.
      expect(await gauges()).toEqual({ usable: 0, lagSeconds: undefined, replicating: undefined })
    } finally {
      // Note: the next test starts from a running replica even when this one failed.
      await replica.restart()
    }
  })

  test('behavior: the replica promoted, restarted and written to: skipped within 2 s, never read while it is not a replica; no wrong answer', async () => {
    await vi.waitFor(async () => expect((await gauges()).usable).toBe(1), { timeout: 30_000, interval: 100 })
    // The late blocks' rows removed on the primary (and so on the replica); written back after
    // the promotion, on the primary only: a read from the promoted server answers them null.
    const late = uncles.filter((u) => u.blockNumber > 7000)
    await primaryDb.db.execute(sql`delete from uncles where network = 'mainnet' and block_number > 7000`)
    await primaryDb.db.execute(sql`delete from blocks where network = 'mainnet' and number > 7000`)
    await until(late[0]!, 'null')

    const promotedAt = Date.now()
    await replica.promote()
    await vi.waitFor(async () => expect((await gauges()).usable).toBe(0), { timeout: 10_000, interval: 20 })
    const skippedAfterMs = Date.now() - promotedAt
    expect(skippedAfterMs).toBeLessThan(2000)

    // Restarted, it reports no replay position; written to, it moves on by itself.
    await replica.stop()
    await replica.restart()
    await replicaDb.db.execute(sql`create table if not exists promoted_writes (n int)`)
    await replicaDb.db.execute(sql`insert into promoted_writes values (1)`)
    await seedMainnetUncles(primaryDb.db, 'mainnet', 8191)

    // A read from the promoted server would answer these null: every answer found means none went there.
    const wrong: string[] = []
    const until5s = Date.now() + 5000
    while (Date.now() < until5s) {
      const outcomes = await Promise.all(late.slice(0, 20).map((u) => ask(u)))
      wrong.push(...outcomes.filter((o) => o !== 'found'))
      await replicaDb.db.execute(sql`insert into promoted_writes values (2)`)
    }
    expect(wrong).toEqual([])
    expect(await gauges()).toEqual({ usable: 0, lagSeconds: undefined, replicating: 0 })
    const ready = (await (await fetch(metricsUrl.replace(/\/metrics$/, '/ready'))).json()) as { checks: { replicas: unknown[] }; reasons: string[] }
    expect(ready.checks.replicas).toEqual([
      { name: expect.stringMatching(/\/uncle_rpc$/), usable: false, replicating: false, lag_ms: null, reason: 'not a replica: not in recovery (promoted, or a primary)' },
    ])
    expect(ready.reasons.join('\n')).toContain('not a replica')
    expect(rpc.stdout() + rpc.stderr()).toContain('read replica skipped: not replicating')
  })
})
