import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { latestIndexedBlock } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, spawnCli } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test } from 'vitest'
import { type RedisServer, startRedisServer } from './_test/redisServer.js'

// The indexer through an outage of its Redis longer than the head lease: it stops following the
// head (another process could hold the lease by then), logs only JSON lines, and when Redis is
// back it takes the lease again and indexes the blocks that came meanwhile.

describe('indexer during a Redis outage', () => {
  const processes: CliProcess[] = []
  let redis: RedisServer | undefined
  let database: OpenTestDatabase | undefined

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')))
    await redis?.stop()
    await database?.close()
  })

  test('error: Redis down for longer than the head lease and back: indexing resumes, and every log line is JSON', async () => {
    redis = await startRedisServer()
    database = await openTestDatabase({ max: 1 })
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', '200', '--seed', '5', '--block-time', '300'])
    processes.push(node)
    const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1] as string
    const config = join(tmpdir(), `uncle-rpc-redis-outage-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'outage', chainId: 1337, rpcUrl: url, fromBlock: 0, confirmations: 2 }] }))
    const indexer = spawnCli(['indexer', '--config', config, '--poll-interval-ms', '200'], {
      env: { DATABASE_URL: database.url, REDIS_URL: redis.url, LOG_LEVEL: 'info' },
    })
    processes.push(indexer)
    const { db } = database
    const latest = async () => (await latestIndexedBlock(db, { network: 'outage' }))?.number ?? -1n
    await indexer.waitFor(/"msg":"following the head"/, 30_000)
    await redis.stop()
    // The lease could not be renewed for as long as it lasts: the follower stops writing.
    await indexer.waitFor(/"msg":"lost the tip lease: Redis did not answer/, 30_000)
    const beforeRestart = await latest()
    await redis.start()
    // Redis came back empty: the lease is taken again and the head is followed from the database.
    await indexer.waitFor(/"msg":"following the head"[\s\S]*"msg":"following the head"/, 30_000)
    const deadline = Date.now() + 30_000
    while ((await latest()) <= beforeRestart + 3n && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await latest()).toBeGreaterThan(beforeRestart + 3n)
    const lines = indexer.stderr().split('\n').filter((line) => line.trim() !== '')
    const raw = lines.filter((line) => {
      try {
        JSON.parse(line)
        return false
      } catch {
        return true
      }
    })
    expect(raw.slice(0, 30).join('\n')).toBe('')
    expect(lines.length).toBeGreaterThan(0)
  }, 90_000)
})
