import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

const bin = fileURLToPath(new URL('../../bin/uncle-rpc.js', import.meta.url))
const exec = promisify(execFile)

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [bin, 'migrate', ...args], {
      env: { ...process.env, DATABASE_URL: '' },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

let database: TestDatabase
let url: string

beforeAll(async () => {
  // Note: only the name is reserved; the command under test creates the database.
  database = await createTestDatabase({ create: false })
  url = database.url
})

afterAll(async () => {
  await database?.drop()
})

// Note: each run starts a process (a process start each), so the tests run concurrently.
describe.concurrent('uncle-rpc migrate', () => {
  test('default', async () => {
    const first = await cli('--database-url', url)
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(
      /^created database "uncle_rpc_test_\w+" \(postgres:.*\)\napplied \d+ migrations?; (\d+) of \1 now applied\n$/,
    )
    const second = await cli(`--database-url=${url}`)
    expect(second.stdout).toMatch(/^database "\w+" exists \(.*\)\nschema up to date: (\d+) of \1 migrations applied\n$/)
  })

  test('args: --help', async () => {
    const { code, stdout } = await cli('--help')
    expect(code).toBe(0)
    expect(stdout).toContain('Usage: uncle-rpc migrate [--database-url <url>]')
  })

  test('error: bad flags', async () => {
    const [bogus, mysql, multiHost] = await Promise.all([
      cli('--bogus'),
      cli('--database-url', 'mysql://x/y'),
      cli('--database-url', 'postgres://db1:5432,db2:5432/uncle_rpc?target_session_attrs=read-write'),
    ])
    expect(multiHost).toMatchObject({ code: 2, stderr: expect.stringMatching(/^migrate: --database-url: several hosts in one URL .*HAProxy checking Patroni's REST API/) })
    expect(bogus).toMatchObject({ code: 2, stderr: expect.stringContaining("Unknown option '--bogus'") })
    expect(mysql).toMatchObject({
      code: 2,
      stderr: 'migrate: --database-url: expected a postgres:// or postgresql:// URL\n',
    })
  })
})
