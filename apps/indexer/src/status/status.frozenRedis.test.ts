import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { registerNetwork } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, type RedisServer, spawnCli, startRedisServer } from '@uncle-rpc/testing'
import { afterAll, expect, test } from 'vitest'

// `uncle-rpc status` against a Redis that accepts connections and never answers (SIGSTOP, as a
// hung or cut-off server looks from here): the database part is printed and the queue part says
// it could not be read, in seconds, instead of the command hanging.

let database: OpenTestDatabase | undefined
let redis: RedisServer | undefined
let status: CliProcess | undefined

afterAll(async () => {
  await status?.stop('SIGKILL')
  redis?.thaw()
  await redis?.stop()
  await database?.close()
})

test('error: status against a frozen Redis prints the index and "queue unavailable" within seconds', async () => {
  database = await openTestDatabase({ max: 1 })
  redis = await startRedisServer()
  const network = 'frozenredis'
  await registerNetwork(database.db, { name: network, chainId: 1337n })
  const config = join(tmpdir(), `uncle-rpc-status-frozen-${process.pid}.json`)
  writeFileSync(config, JSON.stringify({ networks: [{ name: network, chainId: 1337, rpcUrl: 'http://127.0.0.1:9/', fromBlock: 0, toBlock: 100, confirmations: 0 }] }))
  redis.freeze()
  const startedAt = Date.now()
  status = spawnCli(['status', '--config', config, '--json'], { env: { DATABASE_URL: database.url, REDIS_URL: redis.url } })
  const code = await Promise.race([status.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 30_000))])
  expect(code).not.toBe('hung')
  expect(Date.now() - startedAt).toBeLessThan(30_000)
  const [shown] = JSON.parse(status.stdout()) as { network: string; queueError?: string }[]
  expect(shown?.network).toBe(network)
  expect(JSON.stringify(shown)).toMatch(/timed out/i)
}, 120_000)
