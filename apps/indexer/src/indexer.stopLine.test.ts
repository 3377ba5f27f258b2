import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countBlocks, countUncles } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, spawnCli } from '@uncle-rpc/testing'
import { afterAll, expect, test } from 'vitest'

// The indexer's stop line, as `npm start` runs it (the head followed, no toBlock): the blocks and
// uncles it says it indexed are those the database holds, not those fetched more than once.

const processes: CliProcess[] = []
let database: OpenTestDatabase | undefined
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()))
  await database?.close()
})

test('behavior: blocks_indexed and uncles_found on the stop line equal what was stored', async () => {
  database = await openTestDatabase({ max: 2 })
  const node = spawnCli(['sample-node', '--port', '0', '--synthetic', '10000', '--seed', '1'])
  processes.push(node)
  const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1] as string
  const config = join(tmpdir(), `uncle-rpc-stopline-${process.pid}.json`)
  writeFileSync(config, JSON.stringify({ networks: [{ name: 'demo', chainId: 1337, rpcUrl: url, confirmations: 0 }] }))
  const indexer = spawnCli(['indexer', '--config', config], { env: { DATABASE_URL: database.url, LOG_LEVEL: 'info' } })
  processes.push(indexer)
  const deadline = Date.now() + 120_000
  while ((await countBlocks(database.db, { network: 'demo' })) < 10_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 500))
  // Note: a moment for jobs still in flight over blocks already stored.
  await new Promise((resolve) => setTimeout(resolve, 3000))
  await indexer.stop()
  const line = indexer
    .stderr()
    .split('\n')
    .find((l) => l.includes('"msg":"indexer stopped"'))
  const stopped = JSON.parse(line ?? '{}') as { blocks_indexed?: number; uncles_found?: number; blocks_written?: number }
  const stored = { blocks: await countBlocks(database.db, { network: 'demo' }), uncles: await countUncles(database.db, { network: 'demo' }) }
  expect(stored.blocks).toBe(10_000)
  expect({ blocks: stopped.blocks_indexed, uncles: stopped.uncles_found }).toEqual(stored)
}, 200_000)
