import { describe, expect, test } from 'vitest'
import { describeRedisTarget, parseRedisUrl } from './redisUrl.js'

const problem = (url: string) => {
  try {
    parseRedisUrl(url)
  } catch (error) {
    return (error as Error).message
  }
  return 'parsed'
}

describe('parseRedisUrl', () => {
  test('default: one server, handed to ioredis as written', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toEqual({ kind: 'server', url: 'redis://127.0.0.1:6379' })
    expect(parseRedisUrl('rediss://:pw@r.example.com:6380/2')).toEqual({ kind: 'server', url: 'rediss://:pw@r.example.com:6380/2' })
  })

  test('args: sentinels, master name, db and credentials', () => {
    expect(parseRedisUrl('redis+sentinel://:s3cret@10.0.0.1:26379,10.0.0.2:26380,[::1]/mymaster/3')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
        { host: '::1', port: 26379 },
      ],
      masterName: 'mymaster',
      db: 3,
      password: 's3cret',
      tls: false,
    })
    expect(parseRedisUrl('rediss+sentinel://app:p%40ss@s1:1/my%20master?sentinelPassword=x%26y&sentinelUsername=watch')).toEqual({
      kind: 'sentinel',
      sentinels: [{ host: 's1', port: 1 }],
      masterName: 'my master',
      db: 0,
      username: 'app',
      password: 'p@ss',
      sentinelUsername: 'watch',
      sentinelPassword: 'x&y',
      tls: true,
    })
  })

  test('behavior: a password holding @ or : (percent-encoded or not) stays whole', () => {
    const target = parseRedisUrl('redis+sentinel://:a@b:c@h:26379/m')
    expect(target.kind === 'sentinel' && target.password).toBe('a@b:c')
  })

  test('error: each bad URL names its problem and never repeats the URL', () => {
    const cases = {
      'nope': problem('nope'),
      'http://h': problem('http://h'),
      'redis://exa mple:1': problem('redis://exa mple:1'),
      'no hosts': problem('redis+sentinel:///mymaster'),
      'no master': problem('redis+sentinel://h:26379'),
      'empty master': problem('redis+sentinel://h:26379/'),
      'empty address': problem('redis+sentinel://h:1,,h2:2/m'),
      'bad port': problem('redis+sentinel://:secret@h1:1,h2:99999/m'),
      'port text': problem('redis+sentinel://h1:port/m'),
      'no host': problem('redis+sentinel://:26379/m'),
      'open bracket': problem('redis+sentinel://[::1:26379/m'),
      'bad db': problem('redis+sentinel://h/m/x'),
      'extra path': problem('redis+sentinel://h/m/0/1'),
      'bad escape': problem('redis+sentinel://:50%@h/m'),
      'unknown parameter': problem('redis+sentinel://h/m?password=x'),
      'fragment': problem('redis+sentinel://h/m#x'),
    }
    expect(cases).toMatchInlineSnapshot(`
      {
        "bad db": "the database number (after the master name) must be a non-negative integer",
        "bad escape": "the password has a bad %-escape (write % as %25)",
        "bad port": "sentinel address 2 of 2 has a bad port (expected a number 1-65535)",
        "empty address": "sentinel address 2 of 3 is empty (addresses are separated by single commas)",
        "empty master": "a redis+sentinel URL needs the master name after the sentinels: …/<master name>[/<db>]",
        "extra path": "a redis+sentinel URL has at most two path parts: /<master name>[/<db>]",
        "fragment": "a redis+sentinel URL takes no #fragment",
        "http://h": "expected a redis://, rediss://, redis+sentinel:// or rediss+sentinel:// URL",
        "no host": "the sentinel address has no host",
        "no hosts": "a redis+sentinel URL needs at least one sentinel host:port",
        "no master": "a redis+sentinel URL needs the master name after the sentinels: …/<master name>[/<db>]",
        "nope": "expected a redis://, rediss://, redis+sentinel:// or rediss+sentinel:// URL",
        "open bracket": "the sentinel address opens an IPv6 address with "[" but does not close it",
        "port text": "the sentinel address has a bad port (expected a number 1-65535)",
        "redis://exa mple:1": "not a valid redis:// URL",
        "unknown parameter": "unknown parameter in a redis+sentinel URL (expected sentinelUsername or sentinelPassword)",
      }
    `)
    for (const message of Object.values(cases)) expect(message).not.toContain('secret')
  })

  test('behavior: described without credentials', () => {
    expect(describeRedisTarget(parseRedisUrl('redis+sentinel://:pw@a:1,[::1]:2/main'))).toBe('master "main" via sentinels a:1,[::1]:2')
    expect(describeRedisTarget(parseRedisUrl('redis://:pw@r.example.com'))).toBe('r.example.com:6379')
  })
})
