import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { redisKeyPrefix } from '@uncle-rpc/config'
import { listIndexedRanges } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, createTcpProxy, spawnCli, type TcpProxy } from '@uncle-rpc/testing'
import { Queue } from 'bullmq'
import { afterAll, describe, expect, test } from 'vitest'
import { queueName } from './jobs/jobs.js'

// A backfill through a Postgres outage: the indexer reaches the database through a TCP proxy that
// hangs for a few seconds mid-backfill (a hung primary, or one being switched over), so the range
// jobs running then fail by their timeouts. Once it is back,
// those ranges are taken again in their place (lowest heights first, after their backoff), not
// after every range still waiting: no gap is left open until the end of the backfill.

const network = 'pgoutage'
const rangeSize = 40
const blocks = 4000

describe('indexer backfill through a Postgres outage', () => {
  const processes: CliProcess[] = []
  let database: OpenTestDatabase | undefined
  let proxy: TcpProxy | undefined

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')))
    await proxy?.close()
    await database?.close()
  })

  test('behavior: ranges failed in the outage are indexed again before the rest of the backfill, none left to the end', async () => {
    database = await openTestDatabase({ max: 1 })
    const target = new URL(database.url)
    proxy = await createTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const proxied = new URL(database.url)
    proxied.port = String(proxy.port)
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', String(blocks), '--seed', '7', '--fault-latency-ms', '60-120'])
    processes.push(node)
    const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1] as string
    const config = join(tmpdir(), `uncle-rpc-pg-outage-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: network, chainId: 1337, rpcUrl: url, fromBlock: 0, toBlock: blocks - 1, confirmations: 0 }] }))
    const indexer = spawnCli(
      ['indexer', '--config', config, '--range-size', String(rangeSize), '--batch-size', '20', '--concurrency', '2', '--exit-when-done', ...['--db-connect-timeout-ms', '1000', '--db-statement-timeout-ms', '2000', '--db-query-timeout-ms', '3000']],
      { env: { DATABASE_URL: proxied.toString(), LOG_LEVEL: 'info' } },
    )
    processes.push(indexer)
    const { db } = database
    const indexedBlocks = async () => (await listIndexedRanges(db, { network })).reduce((sum, r) => sum + Number(r.to - r.from + 1n), 0)
    // A fifth of the backfill done, then the database hangs for 5 s.
    while ((await indexedBlocks()) < blocks / 5) await new Promise((resolve) => setTimeout(resolve, 100))
    proxy.hang()
    await new Promise((resolve) => setTimeout(resolve, 5000))
    await proxy.restore()
    expect(await Promise.race([indexer.exited, new Promise((resolve) => setTimeout(() => resolve('still running after 240 s'), 240_000))])).toBe(0)
    expect(await indexedBlocks()).toBe(blocks)

    const queue = new Queue(queueName(network), { connection: { host: '127.0.0.1', port: 6379 }, prefix: redisKeyPrefix(database.url) })
    try {
      const jobs = (await queue.getJobs(['completed'], 0, -1)).filter((j) => j !== undefined)
      expect(jobs.length).toBe(blocks / rangeSize)
      const retried = jobs.filter((j) => j.attemptsMade > 1)
      expect(retried.length).toBeGreaterThan(0)
      const lastRetriedAt = Math.max(...retried.map((j) => j.finishedOn ?? 0))
      const highestRetried = Math.max(...retried.map((j) => Number(j.data.from)))
      // Ranges above every retried one that were still waiting when the last retried one was done:
      // with retries sent to the back of the queue there are none.
      const after = jobs.filter((j) => Number(j.data.from) > highestRetried && (j.finishedOn ?? 0) > lastRetriedAt)
      expect(after.length, `${retried.length} retried, ${jobs.length} in all`).toBeGreaterThan(jobs.length / 4)
    } finally {
      await queue.close()
    }
  }, 300_000)
})
