import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { parseMetrics, type Sample, sumSamples } from '@uncle-rpc/metrics'
import { type CliProcess, spawnCli } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { type RedisServer, startRedisServer } from './_test/redisServer.js'

// The metrics the alert rules (docker/prometheus/alerts.yml) read that only move on faults: a real
// indexer with --metrics-port against a sample node serving one tampered block, and a private Redis
// stopped and started again.

describe('indexer metrics for alerts', () => {
  const processes: CliProcess[] = []
  let redis: RedisServer | undefined
  let database: TestDatabase | undefined

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')))
    await redis?.stop()
    await database?.drop()
  })

  test('behavior: a refused range counts as a failed job and leaves the network behind; Redis down reads 0 and the scrape still answers', async () => {
    redis = await startRedisServer()
    database = await createTestDatabase()
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', '300', '--seed', '7', '--tamper-block', '150'])
    processes.push(node)
    const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1]!
    const config = join(tmpdir(), `uncle-rpc-alert-metrics-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'bad', chainId: 1337, rpcUrl: url, fromBlock: 0, toBlock: 299, confirmations: 0 }] }))
    const indexer = spawnCli(['indexer', '--config', config, '--range-size', '50', '--metrics-port', '0'], {
      env: { DATABASE_URL: database.url, REDIS_URL: redis.url, LOG_LEVEL: 'error' },
    })
    processes.push(indexer)
    const metricsUrl = (await indexer.waitFor(/indexer metrics on (http:\/\/\S+)/, 60_000))[1]!
    const scrape = async (): Promise<Sample[]> => {
      const res = await fetch(metricsUrl)
      expect(res.status, indexer.stderr().slice(-2000)).toBe(200)
      return parseMetrics(await res.text())
    }
    /** Scrapes until `done` holds (a failed scrape fails at once; so does waiting past 30 s). */
    const until = (done: (samples: Sample[]) => boolean) =>
      vi.waitUntil(async () => {
        const samples = await scrape()
        return done(samples) && samples
      }, { timeout: 30_000, interval: 100 })
    const failed = (s: Sample[]) => sumSamples(s, 'uncle_rpc_indexer_jobs_failed_total', { network: 'bad' })

    const refused = await until((s) => failed(s) >= 1)
    expect(failed(refused)).toBe(1)
    // Verification is tried several times (3 attempts of the range at least) before the job is refused for good.
    expect(sumSamples(refused, 'uncle_rpc_indexer_verification_failures_total', { network: 'bad' })).toBeGreaterThanOrEqual(3)
    expect(sumSamples(refused, 'uncle_rpc_indexer_jobs', { network: 'bad', state: 'failed' })).toBe(1)
    expect(sumSamples(refused, 'uncle_rpc_indexer_redis_up')).toBe(1)
    // Stuck below the tampered block: the gap between target and indexed height the stall alert reads.
    expect(sumSamples(refused, 'uncle_rpc_indexer_target_height', { network: 'bad' })).toBe(299)
    expect(sumSamples(refused, 'uncle_rpc_indexer_indexed_height', { network: 'bad' })).toBe(149)

    await redis.stop()
    const down = await until((s) => sumSamples(s, 'uncle_rpc_indexer_redis_up') === 0)
    expect(sumSamples(down, 'uncle_rpc_indexer_redis_up')).toBe(0)
    // Job counts are left out rather than stale; the rest of the scrape still answers.
    expect(down.some((s) => s.name === 'uncle_rpc_indexer_jobs')).toBe(false)
    expect(sumSamples(down, 'uncle_rpc_indexer_indexed_height', { network: 'bad' })).toBe(149)

    await redis.start()
    const back = await until((s) => sumSamples(s, 'uncle_rpc_indexer_redis_up') === 1)
    expect(sumSamples(back, 'uncle_rpc_indexer_redis_up')).toBe(1)
    expect(indexer.child.exitCode).toBe(null)
  }, 90_000)
})
