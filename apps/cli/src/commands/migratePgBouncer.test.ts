import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { type PgBouncer, requireTool, spawnCli, startPgBouncer } from '@uncle-rpc/testing'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

// `uncle-rpc migrate` through a real PgBouncer 1.18: in transaction mode a session-level lock
// stays on whichever server connection ran it, after the client is gone; and PgBouncer's defaults
// refuse the startup parameters we send.

/** Runs `uncle-rpc migrate --database-url <url> <args>`; kills it after `killAfterMs` (a hang). */
async function migrate(url: string, args: string[] = [], killAfterMs = 45_000) {
  const started = performance.now()
  const cli = spawnCli(['migrate', '--database-url', url, ...args], { env: { DATABASE_URL: '' } })
  const timer = setTimeout(() => void cli.stop('SIGKILL'), killAfterMs)
  const code = await cli.exited
  clearTimeout(timer)
  return { code, ms: performance.now() - started, stdout: cli.stdout(), stderr: cli.stderr() }
}

const haveBouncer = requireTool('pgbouncer', 'pgbouncer') !== undefined

describe.skipIf(!haveBouncer)('uncle-rpc migrate through PgBouncer', () => {
  let database: TestDatabase
  let bouncer: PgBouncer
  const name = () => new URL(database.url).pathname.slice(1)

  beforeAll(async () => {
    database = await createTestDatabase()
    bouncer = await startPgBouncer({ poolMode: 'transaction', poolSize: 3, ignoreStartupParameters: ['statement_timeout', 'options'] })
  })

  afterAll(async () => {
    await bouncer?.stop()
    await database?.drop()
  })

  test('behavior: transaction mode: migrate ends while another client holds a transaction, again and again', async () => {
    const holder = new pg.Client({ connectionString: bouncer.url(name()) })
    await holder.connect()
    try {
      for (let round = 0; round < 3; round++) {
        const run = await migrate(bouncer.url(name()))
        expect(run.code, run.stderr).toBe(0)
        expect(run.stdout).toMatch(/schema up to date/)
        // Note: holds the server connection the last migrate ran on (PgBouncer lends the last used first).
        await holder.query(round === 0 ? 'begin' : 'commit; begin')
        await holder.query('select 1')
      }
    } finally {
      await holder.query('rollback').catch(() => undefined)
      await holder.end()
    }
  }, 180_000)

  test('behavior: migrate creates a missing database through PgBouncer (which reports it as 08P01, not 3D000)', async () => {
    const missing = await createTestDatabase({ create: false })
    try {
      const run = await migrate(bouncer.url(new URL(missing.url).pathname.slice(1)))
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toMatch(/^created database "\w+" \(postgres:.*\)\napplied \d+ migrations?; (\d+) of \1 now applied\n$/)
    } finally {
      await missing.drop()
    }
  }, 90_000)

  test('error: a command through PgBouncer\'s defaults says what PgBouncer refused, not only the query', async () => {
    const strict = await startPgBouncer({ poolMode: 'transaction' })
    try {
      const cli = spawnCli(['keys', 'create', '--plan', 'core'], { env: { DATABASE_URL: strict.url(name()) } })
      expect(await cli.exited).toBe(1)
      expect(cli.stderr()).toMatch(/caused by: .*unsupported startup parameter: statement_timeout/)
    } finally {
      await strict.stop()
    }
  })

  test('error: another migrate holding the migration lock makes it give up within its --lock-timeout-ms, with a clear error', async () => {
    const holder = new pg.Client({ connectionString: database.url })
    await holder.connect()
    try {
      await holder.query('begin')
      await holder.query(`select pg_advisory_xact_lock(${0x756e636c65})`)
      const run = await migrate(bouncer.url(name()), ['--lock-timeout-ms', '1000'])
      expect(run.code).toBe(1)
      expect(run.ms).toBeLessThan(30_000)
      expect(run.stderr).toMatch(/another `uncle-rpc migrate` has held the migration lock for more than 1000 ms/)
    } finally {
      await holder.query('rollback')
      await holder.end()
    }
  })
})
