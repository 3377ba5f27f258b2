import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, runCli, spawnCli } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { writeSyntheticEra1Dir } from './_test/syntheticEra1.js'

// An era1 file that is valid but does not fit blocks already stored from a node on another chain
// is refused for good: one attempt, recorded and shown by `status`, not queued again by later
// planning passes (or later runs), and the indexer still finishes.

const tmp = (label: string) => mkdtempSync(join(tmpdir(), `uncle-rpc-era1-conflict-${label}-`))

function writeConfig(network: Record<string, unknown>): string {
  const path = join(tmp('config'), 'networks.json')
  writeFileSync(path, JSON.stringify({ networks: [{ name: 'synthetic', chainId: 1337, confirmations: 0, ...network }] }))
  return path
}

const flags = ['--lock-duration-ms', '3000']
let node: CliProcess
let database: TestDatabase

beforeAll(async () => {
  node = spawnCli(['sample-node', '--port', '0', '--synthetic', '300', '--seed', '12'])
  database = await createTestDatabase()
})

afterAll(async () => {
  await node?.stop()
  await database?.drop()
})

test('error: an era1 epoch that does not fit the stored chain is refused once, shown by status, and not queued again', async () => {
  const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1]
  const env = { DATABASE_URL: database.url }
  // Blocks 100–199 from a node whose chain (seed 12) is not the era1 files' (seed 11).
  const fromNode = writeConfig({ rpcUrl: url, fromBlock: 100, toBlock: 199 })
  const first = await runCli(['indexer', '--config', fromNode, '--exit-when-done', ...flags], { env })
  expect(first.code, first.stderr).toBe(0)

  const dir = tmp('files')
  const names = await writeSyntheticEra1Dir({ dir, blocks: 8192, seed: 11 })
  const fromFiles = writeConfig({ era1: dir, fromBlock: 0, toBlock: 8191 })
  const refused = await runCli(['indexer', '--config', fromFiles, '--exit-when-done', ...flags], { env })
  expect(refused.code, refused.stderr.slice(-2000)).toBe(0)
  expect(refused.stderr.match(/"msg":"job refused, not retried"/g)).toHaveLength(1)
  expect(refused.stderr).toMatch(/era1 file synthetic-00000-[0-9a-f]{8}\.era1 does not fit the stored chain/)

  const status = await runCli(['status', '--config', fromFiles, '--json'], { env })
  const [network] = JSON.parse(status.stdout) as {
    blocks: number
    failed: { attempts: number; reason: string }[]
    era1Refused: { epoch: number; file: string; reason: string }[]
  }[]
  expect(network?.blocks).toBe(100)
  expect(network?.era1Refused).toEqual([{ epoch: 0, file: names.get(0), reason: expect.stringMatching(/^does not fit the stored chain: /), at: expect.any(String) }])
  expect(network?.failed).toEqual([expect.objectContaining({ attempts: 1, reason: expect.stringContaining('does not fit the stored chain') })])
  const human = await runCli(['status', '--config', fromFiles], { env })
  expect(human.code).toBe(3)
  expect(human.stdout).toMatch(new RegExp(`refused era1 file ${names.get(0)} \\(epoch 0\\).*: does not fit the stored chain: stored block 100 is not a child of block 99`))

  // A later run plans the network again: the refused epoch is not tried again.
  const again = await runCli(['indexer', '--config', fromFiles, '--exit-when-done', ...flags], { env })
  expect(again.code, again.stderr.slice(-2000)).toBe(0)
  expect(again.stderr).not.toContain('does not fit the stored chain')
}, 120_000)
