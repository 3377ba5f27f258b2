import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, spawnCli } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test } from 'vitest'
import { type RedisServer, startRedisServer } from './_test/redisServer.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('indexer during a Redis outage', () => {
  const processes: CliProcess[] = []
  let redis: RedisServer | undefined
  let database: TestDatabase | undefined

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')))
    await redis?.stop()
    await database?.drop()
  })

  test('error: while its Redis is down and back the indexer writes only JSON log lines (no raw connection stacks)', async () => {
    redis = await startRedisServer()
    database = await createTestDatabase()
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', '200', '--seed', '5', '--block-time', '300'])
    processes.push(node)
    const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1] as string
    const config = join(tmpdir(), `uncle-rpc-redis-outage-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'outage', chainId: 1337, rpcUrl: url, fromBlock: 0, confirmations: 2 }] }))
    const indexer = spawnCli(['indexer', '--config', config, '--poll-interval-ms', '200'], {
      env: { DATABASE_URL: database.url, REDIS_URL: redis.url, LOG_LEVEL: 'info' },
    })
    processes.push(indexer)
    await indexer.waitFor(/"msg":"following the head"/, 30_000)
    await redis.stop()
    await sleep(3000)
    await redis.start()
    await sleep(1500)
    const lines = indexer.stderr().split('\n').filter((line) => line.trim() !== '')
    const raw = lines.filter((line) => {
      try {
        JSON.parse(line)
        return false
      } catch {
        return true
      }
    })
    expect(raw.slice(0, 30).join("\n")).toBe("")
    expect(lines.length).toBeGreaterThan(0)
  }, 40_000)
})
