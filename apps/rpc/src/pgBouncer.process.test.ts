import { createDb, type Db } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { describeWithFixtures, type PgBouncer, requireTool, startPgBouncer } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived, seedMainnetUncles } from './_test/seed.js'
import { startRpcProcess, sleep } from './_test/rpcProcess.js'
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

  const databaseName = () => new URL(database.url).pathname.slice(1)
  const call = (id: number, blockHash: string, index: string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"eth_getUncleByBlockHashAndIndex","params":["${blockHash}","${index}"]}`

  test.skipIf(!haveBouncer)('behavior: known, unknown and past-the-end calls with no cache: none fails, each answer exact', async () => {
    const rpc = await startRpcProcess(bouncer.url(databaseName()), ['--db-pool', '4', '--cache-entries', '0', '--rate-limits', 'off', '--db-deadline-ms', '5000'])
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
      // Note: 30 in flight at a time, so statements of several connections overlap; the deadline is
      // raised so that a loaded machine does not decide.
      for (let at = 0; at < calls.length; at += 30) {
        const chunk = calls.slice(at, at + 30)
        const answers = await Promise.all(chunk.map((c) => rawRequest(`${rpc.base}/v3/${key}`, { body: c.body })))
        for (const [i, answer] of answers.entries()) if (answer.status !== 200 || !answer.body.includes(chunk[i]!.expect)) wrong.push(answer.body)
      }
      expect(wrong.length, wrong[0]).toBe(0)
      // The settings PgBouncer dropped are named once in the log (the deadline that holds instead too).
      expect(rpc.cli.stderr()).toMatch(/does not have the settings asked for at connect time.*statement_timeout \(asked \d+ ms, has 0 ms\)/)
    } finally {
      await rpc.cli.stop()
    }
  })

  /**
   * Asks for the uncles of blocks (from, to] once each (null: not indexed yet), indexes them as the
   * indexer does (rows and the notification in one transaction), waits 2 s and asks again; the answers that are not the uncle.
   */
  // Note: these tests read one answer at a time on a CI machine running the rest of the suite; the
  // read deadline is 5 s (as in the first test) so that a slow moment is not counted as a wrong answer.
  async function wrongAfterIndexing(base: string, from: number, to: number): Promise<{ wrong: string[]; of: number }> {
    const later = derivedUncles().filter((u) => u.blockNumber > from && u.blockNumber <= to)
    for (const uncle of later.slice(0, 5)) expect((await rawRequest(`${base}/v3/${key}`, { body: call(1, uncle.blockHash, uncle.index) })).body).toContain('"result":null')
    await seedMainnetUncles(db, 'mainnet', to, from + 1)
    await sleep(2000)
    const wrong: string[] = []
    for (const uncle of later) {
      const answer = await rawRequest(`${base}/v3/${key}`, { body: call(1, uncle.blockHash, uncle.index) })
      if (!answer.body.includes(`"hash":"${uncle.result.hash as string}"`)) wrong.push(answer.body)
    }
    expect(later.length).toBeGreaterThan(50)
    return { wrong, of: later.length }
  }

  const filterOff = /null filter off: its connection answers queries but does not hear notifications/g

  test.skipIf(!haveBouncer)('behavior: uncles of blocks indexed after the rpc started are answered within 2 s, never null; the filter says once that it is off', async () => {
    const rpc = await startRpcProcess(bouncer.url(databaseName()), ['--rate-limits', 'off', '--db-deadline-ms', '5000'])
    try {
      await rpc.cli.waitFor(filterOff, 10_000)
      const { wrong, of } = await wrongAfterIndexing(rpc.base, seededTo, seededTo + 2000)
      expect(wrong.length, `${wrong.length} of ${of} wrong: ${wrong[0]}`).toBe(0)
      expect(rpc.cli.stderr().match(filterOff)?.length).toBe(1)
    } finally {
      await rpc.cli.stop()
    }
  })

  test.skipIf(!haveBouncer)('behavior: with DATABASE_LISTEN_URL direct, the filter is on and follows the writes', async () => {
    const rpc = await startRpcProcess(bouncer.url(databaseName()), ['--rate-limits', 'off', '--db-deadline-ms', '5000'], { DATABASE_LISTEN_URL: database.url, LOG_LEVEL: 'info' })
    try {
      await rpc.cli.waitFor(/null filter loaded/, 10_000)
      const { wrong, of } = await wrongAfterIndexing(rpc.base, seededTo + 2000, seededTo + 3000)
      expect(wrong.length, `${wrong.length} of ${of} wrong: ${wrong[0]}`).toBe(0)
      expect(rpc.cli.stderr()).not.toMatch(filterOff)
    } finally {
      await rpc.cli.stop()
    }
  })

  test.skipIf(!haveBouncer)('behavior: through PgBouncer in session mode the filter is on and follows the writes', async () => {
    const session = await startPgBouncer({ poolMode: 'session', ignoreStartupParameters: ['statement_timeout', 'options'] })
    const rpc = await startRpcProcess(session.url(databaseName()), ['--rate-limits', 'off', '--db-pool', '2', '--db-deadline-ms', '5000'], { LOG_LEVEL: 'info' })
    try {
      await rpc.cli.waitFor(/null filter loaded/, 10_000)
      const { wrong, of } = await wrongAfterIndexing(rpc.base, seededTo + 3000, 8191)
      expect(wrong.length, `${wrong.length} of ${of} wrong: ${wrong[0]}`).toBe(0)
    } finally {
      await rpc.cli.stop()
      await session.stop()
    }
  })
})
