import { describe, expect, test } from 'vitest'
import { UsageError } from '@uncle-rpc/config'
import { parseRpcArgs } from './args.js'
import { defaultLimits } from './transport/limits.js'

describe('parseRpcArgs', () => {
  test('default', () => {
    expect(parseRpcArgs([])).toEqual({
      config: undefined,
      port: 8545,
      host: '127.0.0.1',
      workers: 1,
      dbPool: 10,
      dbPipeline: 1,
      dbMaxBatch: 256,
      cacheEntries: 10_000,
      nullFilter: true,
      fastPath: true,
      requestsPerTurn: 8,
      limits: defaultLimits,
      rateLimits: true,
      redisTimeoutMs: 200,
      dbDeadlineMs: 250,
      partner: { timeoutMs: 1500, failureThreshold: 5, cooldownMs: 10_000 },
      usageFlushMs: 500,
      replicaMaxLagMs: 1000,
      db: { statementTimeoutMs: 5000, queryTimeoutMs: 6000, connectTimeoutMs: 1000, keepAliveMs: 10_000 },
      keyLookupTimeoutMs: 1000,
      readyTimeoutMs: 1000,
      listenBacklog: 4096,
      maxEventLoopLagMs: 500,
    })
    expect(parseRpcArgs(['-h'])).toBe('help')
  })

  test('args: every flag', () => {
    const args = parseRpcArgs(
      [
        ['--config', 'n.json', '--port', '0', '--host', '0.0.0.0', '--workers', '2', '--db-pool', '4', '--db-max-batch', '64', '--cache-entries', '0', '--null-filter', 'off', '--fast-path', 'off', '--requests-per-turn', '0'],
        ['--max-body-bytes', '100', '--max-batch-size', '10', '--max-ws-message-bytes', '200', '--ws-idle-timeout-ms', '1000'],
        ['--ws-ping-interval-ms', '500', '--max-ws-connections-per-key', '3', '--rate-limits', 'off', '--redis-timeout-ms', '50'],
        ['--db-deadline-ms', '100', '--partner-timeout-ms', '300', '--partner-failures', '2', '--partner-cooldown-ms', '400'],
        ['--usage-flush-ms', '250', '--replica-max-lag-ms', '2000', '--listen-backlog', '100', '--max-event-loop-lag-ms', '0'],
        ['--db-statement-timeout-ms', '3000', '--db-query-timeout-ms', '4000', '--db-connect-timeout-ms', '500', '--db-keepalive-ms', '0'],
        ['--key-lookup-timeout-ms', '700', '--ready-timeout-ms', '800'],
      ].flat(),
    )
    expect(args).toEqual({
      config: 'n.json',
      port: 0,
      host: '0.0.0.0',
      workers: 2,
      dbPool: 4,
      dbPipeline: 1,
      dbMaxBatch: 64,
      cacheEntries: 0,
      nullFilter: false,
      fastPath: false,
      requestsPerTurn: 0,
      limits: {
        maxBodyBytes: 100,
        maxBatchSize: 10,
        maxWsMessageBytes: 200,
        wsIdleTimeoutMs: 1000,
        wsPingIntervalMs: 500,
        maxWsConnectionsPerKey: 3,
        requestTimeoutMs: 30_000,
        wsMaxInFlight: 16,
        wsMaxQueuedBytes: 8 * 1024 * 1024,
        wsStalledCloseMs: 10_000,
      },
      rateLimits: false,
      redisTimeoutMs: 50,
      dbDeadlineMs: 100,
      partner: { timeoutMs: 300, failureThreshold: 2, cooldownMs: 400 },
      usageFlushMs: 250,
      replicaMaxLagMs: 2000,
      db: { statementTimeoutMs: 3000, queryTimeoutMs: 4000, connectTimeoutMs: 500, keepAliveMs: 0 },
      keyLookupTimeoutMs: 700,
      readyTimeoutMs: 800,
      listenBacklog: 100,
      maxEventLoopLagMs: 0,
    })
  })

  test('error: bad values and unknown flags', () => {
    for (const argv of [['--port', '70000'], ['--port', '-1'], ['--workers', '0'], ['--max-batch-size', '1.5'], ['--nope'], ['x'], ['--rate-limits', 'maybe']])
      expect(() => parseRpcArgs(argv)).toThrow(UsageError)
  })
})
