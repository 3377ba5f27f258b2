import { describe, expect, test } from 'vitest'
import { parseEnv } from './env.js'

describe('parseEnv', () => {
  test('default', () => {
    expect(parseEnv({})).toMatchInlineSnapshot(`
      {
        "DATABASE_READ_URL": [],
        "DATABASE_URL": "postgres://postgres:postgres@127.0.0.1:5432/uncle_rpc",
        "LOG_FORMAT": "auto",
        "LOG_LEVEL": "info",
        "REDIS_URL": "redis://127.0.0.1:6379",
      }
    `)
  })

  test('args: every variable set', () => {
    const env = parseEnv({
      DATABASE_URL: 'postgresql://u:p@db:5433/x',
      DATABASE_LISTEN_URL: 'postgres://u:p@db-direct:5432/x',
      DATABASE_READ_URL: 'postgres://r1:5432/x, postgres://r2:5432/x',
      REDIS_URL: 'rediss://r:6380',
      UNCLE_RPC_CONFIG: '/etc/uncle-rpc.json',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      PATH: '/usr/bin',
    })
    expect(env).toEqual({
      DATABASE_URL: 'postgresql://u:p@db:5433/x',
      DATABASE_LISTEN_URL: 'postgres://u:p@db-direct:5432/x',
      DATABASE_READ_URL: ['postgres://r1:5432/x', 'postgres://r2:5432/x'],
      REDIS_URL: 'rediss://r:6380',
      UNCLE_RPC_CONFIG: '/etc/uncle-rpc.json',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
    })
  })

  test('behavior: frozen', () => {
    const env = parseEnv({})
    expect(Object.isFrozen(env)).toBe(true)
  })

  test('behavior: empty values count as unset', () => {
    expect(parseEnv({ DATABASE_URL: '', LOG_LEVEL: '', UNCLE_RPC_CONFIG: '', SMTP_URL: '' })).toEqual(parseEnv({}))
  })

  test('args: SMTP_URL (the dashboard\'s mail server): smtp:// or smtps://, else unset', () => {
    expect(parseEnv({ SMTP_URL: 'smtps://user:pass@mail.example.com:465' }).SMTP_URL).toBe('smtps://user:pass@mail.example.com:465')
    expect(parseEnv({}).SMTP_URL).toBeUndefined()
    expect(() => parseEnv({ SMTP_URL: 'http://mail.example.com' })).toThrow(/SMTP_URL: expected a smtp:\/\/ or smtps:\/\/ URL/)
  })

  test('error: a multi-host URL (libpq\'s host1,host2) names the supported ways instead of "expected a postgres:// URL"', () => {
    for (const url of [
      'postgres://db1,db2/uncle_rpc?target_session_attrs=read-write',
      'postgresql://app:secret@db1:5432,db2:5433/uncle_rpc',
    ]) {
      expect(() => parseEnv({ DATABASE_URL: url })).toThrow(/DATABASE_URL: several hosts in one URL .*a virtual IP, HAProxy checking Patroni's REST API/)
      expect(() => parseEnv({ DATABASE_READ_URL: `postgres://r0/uncle_rpc,${url.replace('read-write', 'prefer-standby')}` })).toThrow(
        /DATABASE_READ_URL\[1\]: several hosts in one URL/,
      )
    }
    expect(() => parseEnv({ DATABASE_URL: 'postgres://app:secret@db1,db2/uncle_rpc' })).not.toThrow(/secret/)
    expect(parseEnv({ DATABASE_READ_URL: 'postgres://r1/uncle_rpc, postgres://r2/uncle_rpc' }).DATABASE_READ_URL).toEqual([
      'postgres://r1/uncle_rpc',
      'postgres://r2/uncle_rpc',
    ])
  })

  test('error: names each bad variable and does not echo URLs', () => {
    expect(() =>
      parseEnv({ DATABASE_URL: 'mysql://root:secret@db/x', REDIS_URL: 'nope', LOG_LEVEL: 'verbose' }),
    ).toThrowErrorMatchingInlineSnapshot(`
      [ConfigError: Invalid configuration in the environment:
        DATABASE_URL: expected a postgres:// or postgresql:// URL
        REDIS_URL: expected a redis://, rediss://, redis+sentinel:// or rediss+sentinel:// URL
        LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent]
    `)
  })
})
