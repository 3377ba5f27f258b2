import { type RedisServer, startRedisServer } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test } from 'vitest'
import { createLogger } from './logger.js'
import { createRedisClient, redisOptions, warnUnlessNoEviction } from './redisClient.js'

describe('redisOptions', () => {
  test('args: sentinel targets become ioredis sentinel options; the caller tunes on top', () => {
    const { reconnectOnError, Connector, ...options } = redisOptions('rediss+sentinel://:pw@a:1,b:2/main/4?sentinelPassword=sp', { maxRetriesPerRequest: null })
    expect(options).toEqual({
      sentinels: [
        { host: 'a', port: 1 },
        { host: 'b', port: 2 },
      ],
      name: 'main',
      db: 4,
      password: 'pw',
      sentinelPassword: 'sp',
      tls: {},
      sentinelTLS: {},
      enableTLSForSentinelMode: true,
      failoverDetector: true,
      maxRetriesPerRequest: null,
    })
    expect(typeof reconnectOnError).toBe('function')
    expect(Connector?.name).toBe('SentinelConnectorEndingDetector')
  })

  test('behavior: READONLY and UNBLOCKED reconnect and resend under Sentinel, reconnect only with one server', () => {
    const sentinel = redisOptions('redis+sentinel://a/main').reconnectOnError!
    const server = redisOptions('redis://a:6379').reconnectOnError!
    const readonly = new Error("READONLY You can't write against a read only replica.")
    const unblocked = new Error('UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)')
    expect([sentinel(readonly), server(readonly), sentinel(unblocked), server(unblocked), sentinel(new Error('ERR wrong number'))]).toEqual([2, 1, 2, 1, false])
  })
})

describe('warnUnlessNoEviction', () => {
  const servers: RedisServer[] = []
  afterAll(() => Promise.all(servers.map((s) => s.stop())))

  async function warningsFrom(args: readonly string[]): Promise<{ level: number; msg: string }[]> {
    const server = await startRedisServer({ args })
    servers.push(server)
    const lines: { level: number; msg: string }[] = []
    const logger = createLogger({ name: 'test', level: 'debug', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } })
    const client = createRedisClient(server.url)
    try {
      warnUnlessNoEviction(client, logger)
      // Note: the check runs on 'ready'; a PING after it is answered after the CONFIG GET it sent.
      await client.ping()
      await client.ping()
    } finally {
      client.disconnect()
    }
    return lines
  }

  test('behavior: one warning naming the policy when it is not noeviction', async () => {
    const lines = await warningsFrom(['--maxmemory-policy', 'allkeys-lru'])
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'Redis maxmemory-policy is "allkeys-lru", not "noeviction": under memory pressure Redis may evict job queues, leases and rate-limit counts; set maxmemory-policy noeviction',
    ])
  })

  test('default: nothing said under noeviction', async () => {
    const lines = await warningsFrom([])
    expect(lines).toEqual([])
  })

  test('behavior: CONFIG renamed away (as managed Redis does): a debug line, no warning, no crash', async () => {
    const lines = await warningsFrom(['--maxmemory-policy', 'volatile-lru', '--rename-command', 'CONFIG', '""'])
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[20, 'could not read Redis maxmemory-policy (CONFIG disabled or renamed?); not checked']])
  })
})
