import { createApiKey, createDb, type Db } from '@uncle-rpc/db'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { describeWithFixtures, type PgBouncer, requireTool, startPgBouncer } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived, seedMainnetUncles } from './_test/seed.js'
import { startRpcProcess } from './_test/rpcProcess.js'
import { rawRequest } from './_test/server.js'

// A real `uncle-rpc rpc` process whose only database URL is a real PgBouncer 1.18 in transaction
// mode (each transaction may run on any server connection; no named statement or LISTEN survives
// it), with the startup parameters we send listed in ignore_startup_parameters, as docs/postgres.md says.

const seededTo = 4000

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'uncle-rpc rpc through PgBouncer in transaction mode', () => {
  const haveBouncer = requireTool('pgbouncer', 'pgbouncer') !== undefined
  let database: TestDatabase
  let db: Db
  let closeDb: () => Promise<void>
  let key: string
  let bouncer: PgBouncer

  beforeAll(async () => {
    if (!haveBouncer) return
    database = await createTestDatabase()
    ;({ db, close: closeDb } = createDb({ url: database.url, max: 4 }))
    await seedMainnetUncles(db, 'mainnet', seededTo)
    ;({ key } = await createApiKey(db, { plan: 'team', label: 'tests' }))
    // Note: fewer server connections than the rpc's pool, so consecutive transactions of one client land on different ones.
    bouncer = await startPgBouncer({ poolMode: 'transaction', poolSize: 2, ignoreStartupParameters: ['statement_timeout', 'options'] })
  })

  afterAll(async () => {
    await bouncer?.stop()
    await closeDb?.()
    await database?.drop()
  })

  const call = (id: number, blockHash: string, index: string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"eth_getUncleByBlockHashAndIndex","params":["${blockHash}","${index}"]}`

  test.skipIf(!haveBouncer)('behavior: known, unknown and past-the-end calls with no cache: none fails, each answer exact', async () => {
    const rpc = await startRpcProcess(bouncer.url(new URL(database.url).pathname.slice(1)), ['--db-pool', '4', '--cache-entries', '0', '--rate-limits', 'off'])
    try {
      const known = derivedUncles().filter((u) => u.blockNumber <= seededTo)
      const calls: { body: string; expect: string }[] = []
      for (let i = 0; i < 600; i++) {
        const uncle = known[(i * 7) % known.length]!
        if (i % 3 === 0) calls.push({ body: call(i, uncle.blockHash, uncle.index), expect: `"hash":"${uncle.result.hash as string}"` })
        else if (i % 3 === 1) calls.push({ body: call(i, `0x${(i + 1).toString(16).padStart(64, 'e')}`, '0x0'), expect: '"result":null' })
        else calls.push({ body: call(i, uncle.blockHash, '0x7'), expect: '"result":null' })
      }
      const wrong: string[] = []
      // Note: 30 in flight at a time, so statements of several connections overlap.
      for (let at = 0; at < calls.length; at += 30) {
        const chunk = calls.slice(at, at + 30)
        const answers = await Promise.all(chunk.map((c) => rawRequest(`${rpc.base}/v3/${key}`, { body: c.body })))
        for (const [i, answer] of answers.entries()) if (answer.status !== 200 || !answer.body.includes(chunk[i]!.expect)) wrong.push(answer.body)
      }
      expect(wrong.length, wrong[0]).toBe(0)
    } finally {
      await rpc.cli.stop()
    }
  })
})
