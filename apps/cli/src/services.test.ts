import { parseEnv } from '@uncle-rpc/config'
import { migrateDatabase } from '@uncle-rpc/db'
import { freePort, type PostgresServer, type SentinelGroup, sentinelTools, startPostgresServer, startSentinelGroup } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test } from 'vitest'
import { checkServices } from './services.js'

// The check `uncle-rpc start` makes before anything else, with REDIS_URL under Redis Sentinel.

const tools = sentinelTools()

describe.skipIf(tools === undefined)('checkServices with redis+sentinel://', () => {
  let group: SentinelGroup | undefined
  afterAll(() => group?.close())

  test('default: sentinels that name a primary: no problem', async () => {
    group = await startSentinelGroup(tools!)
    expect(await checkServices(parseEnv({ REDIS_URL: group.url }))).toEqual([])
  }, 30_000)

  test('error: no sentinel answers: says which master and sentinels, not the password', async () => {
    const [a, b] = [await freePort(), await freePort()]
    const problems = await checkServices(parseEnv({ REDIS_URL: `redis+sentinel://:hunter2@127.0.0.1:${a},127.0.0.1:${b}/uncle` }))
    expect(problems).toHaveLength(1)
    expect(problems[0]).toContain(`Redis is not answering at master "uncle" via sentinels 127.0.0.1:${a},127.0.0.1:${b} (`)
    expect(problems[0]).toContain('Check that the sentinels run and monitor "uncle"')
    expect(problems[0]).not.toContain('hunter2')
  }, 30_000)
})

describe('checkServices with a password-protected Postgres (as docker compose starts it)', () => {
  let server: PostgresServer | undefined
  afterAll(() => server?.remove())

  test('error: no password or a wrong one: says authentication failed and how to put the password in DATABASE_URL; the right one passes and migrates', async () => {
    server = await startPostgresServer({ password: 'postgres' })
    const at = `127.0.0.1:${server.port}`
    const without = await checkServices(parseEnv({ DATABASE_URL: `postgres://postgres@${at}/uncle_rpc` }))
    expect(without).toHaveLength(1)
    expect(without[0]).toContain(`PostgreSQL at ${at} answered, but authentication failed for user "postgres" (the server asks for a password and DATABASE_URL has none).`)
    expect(without[0]).toContain(`  export DATABASE_URL=postgres://postgres:PASSWORD@${at}/uncle_rpc`)
    expect(without[0]).not.toContain('not answering')
    const wrong = await checkServices(parseEnv({ DATABASE_URL: `postgres://postgres:hunter2@${at}/uncle_rpc` }))
    expect(wrong[0]).toContain('authentication failed for user "postgres" (password authentication failed for user "postgres")')
    expect(wrong[0]).not.toContain('hunter2')
    const documented = `postgres://postgres:postgres@${at}/uncle_rpc`
    expect(await checkServices(parseEnv({ DATABASE_URL: documented }))).toEqual([])
    expect((await migrateDatabase({ url: documented })).database).toBe('uncle_rpc')
  }, 60_000)

  test('error: Redis not answering: the hint starts it on the port of REDIS_URL', async () => {
    const port = await freePort()
    const problems = await checkServices(parseEnv({ REDIS_URL: `redis://127.0.0.1:${port}` }))
    expect(problems.find((p) => p.startsWith('Redis'))).toContain(`redis-server --daemonize yes --bind 127.0.0.1 --port ${port} `)
  }, 30_000)
})
