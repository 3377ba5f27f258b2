import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countBlocks, countUncles, listIndexedRanges } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, describeWithFixtures, fixturePath, runCli, spawnCli } from '@uncle-rpc/testing'
import { sleep } from '@uncle-rpc/process'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { compareWithNode } from './_test/compareWithNode.js'
import { freePort } from '@uncle-rpc/testing'

// Acceptance of network isolation: one indexer process, two networks (mainnet 0–8191 from the
// era1 file, and a synthetic chain); the synthetic node is killed for 10 s in the middle.

const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'
const syntheticBlocks = 20_000
/** How long the synthetic node stays down (longer if mainnet has not finished by then). */
const outageMs = 10_000

/** Polls `check` until it holds (failing the test after `timeoutMs`); returns when it did. */
async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  await vi.waitFor(async () => expect(await check(), what).toBe(true), { timeout: timeoutMs, interval: 100 })
  return Date.now()
}

describeWithFixtures([era1], 'one indexer, two networks', () => {
  const processes: CliProcess[] = []
  const databases: OpenTestDatabase[] = []

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()))
    await Promise.all(databases.map((d) => d.close()))
  })

  const startSynthetic = async (port: string) => {
    const node = spawnCli(['sample-node', '--port', port, '--synthetic', String(syntheticBlocks), '--seed', '21'])
    processes.push(node)
    const match = await node.waitFor(/listening on (http:\/\/\S+:(\d+))/, 30_000)
    return { node, url: match[1] as string, port: match[2] as string }
  }

  test('behavior: the synthetic node down for 10 s: mainnet finishes meanwhile, the synthetic network resumes and completes', async () => {
    const database = await openTestDatabase({ max: 2 })
    databases.push(database)
    const mainnet = spawnCli(['sample-node', '--port', '0', '--chain', fixturePath(era1)])
    processes.push(mainnet)
    const mainnetUrl = (await mainnet.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1] as string
    const first = await startSynthetic('0')
    const config = join(tmpdir(), `uncle-rpc-networks-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(
      config,
      JSON.stringify({
        networks: [
          { name: 'mainnet', chainId: 1, rpcUrl: mainnetUrl, fromBlock: 0, toBlock: 8191, confirmations: 0 },
          { name: 'synthetic', chainId: 1337, rpcUrl: first.url, fromBlock: 0, toBlock: syntheticBlocks - 1, confirmations: 0 },
        ],
      }),
    )
    const env = { DATABASE_URL: database.url }
    const indexer = spawnCli(['indexer', '--config', config, '--exit-when-done', '--range-size', '256'], { env })
    processes.push(indexer)
    const { db } = database
    await waitUntil('synthetic blocks', async () => (await countBlocks(db, { network: 'synthetic' })) >= 1_000, 30_000)
    await first.node.stop('SIGKILL')
    const killedAt = Date.now()
    const mainnetDoneAt = await waitUntil(
      'mainnet to finish',
      async () => (await countBlocks(db, { network: 'mainnet' })) === 8192,
      19_000,
    )
    const syntheticMeanwhile = await countBlocks(db, { network: 'synthetic' })
    expect(syntheticMeanwhile).toBeLessThan(syntheticBlocks)
    process.stdout.write(
      `networks: mainnet finished ${mainnetDoneAt - killedAt} ms after the synthetic node died (synthetic at ${syntheticMeanwhile} blocks)\n`,
    )
    await sleep(killedAt + outageMs - Date.now())
    const second = await startSynthetic(first.port)
    const restartedAt = Date.now()
    expect(await Promise.race([indexer.exited, sleep(80_000).then(() => 'still running')])).toBe(0)
    process.stdout.write(`networks: the synthetic network completed ${Date.now() - restartedAt} ms after its node came back\n`)

    expect(await countBlocks(db, { network: 'mainnet' })).toBe(8192)
    expect(await countUncles(db, { network: 'mainnet' })).toBe(1410)
    expect(await listIndexedRanges(db, { network: 'synthetic' })).toEqual([{ from: 0n, to: BigInt(syntheticBlocks - 1) }])
    expect(await compareWithNode(db, { network: 'synthetic', url: second.url, from: 0n, head: BigInt(syntheticBlocks - 1) })).toEqual(
      [],
    )
    expect(indexer.stderr()).toMatch(/upstream retry.*"network":"synthetic"|"network":"synthetic".*upstream retry/)
    const status = await runCli(['status', '--config', config], { env })
    expect(status.stdout).not.toMatch(/gaps: (?!none)/)
  }, 150_000)
})

describe('one indexer, a node down at start', () => {
  const processes: CliProcess[] = []
  const databases: OpenTestDatabase[] = []

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()))
    await Promise.all(databases.map((d) => d.close()))
  })

  test('behavior: the other network is indexed meanwhile; the late one starts when its node answers', async () => {
    const database = await openTestDatabase({ max: 2 })
    databases.push(database)
    const early = spawnCli(['sample-node', '--port', '0', '--synthetic', '3000', '--seed', '31'])
    processes.push(early)
    const earlyUrl = (await early.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1] as string
    const latePort = await freePort()
    const config = join(tmpdir(), `uncle-rpc-late-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(
      config,
      JSON.stringify({
        networks: [
          { name: 'early', chainId: 1337, rpcUrl: earlyUrl, fromBlock: 0, toBlock: 2999, confirmations: 0 },
          { name: 'late', chainId: 1337, rpcUrl: `http://127.0.0.1:${latePort}`, fromBlock: 0, toBlock: 2999, confirmations: 0 },
        ],
      }),
    )
    const env = { DATABASE_URL: database.url }
    const indexer = spawnCli(['indexer', '--config', config, '--exit-when-done'], { env })
    processes.push(indexer)
    const { db } = database
    await waitUntil('the early network', async () => (await countBlocks(db, { network: 'early' })) === 3000, 30_000)
    expect(await countBlocks(db, { network: 'late' })).toBe(0)
    expect(indexer.stderr()).toContain('node unreachable at start; retrying in the background')
    const late = spawnCli(['sample-node', '--port', String(latePort), '--synthetic', '3000', '--seed', '32'])
    processes.push(late)
    await late.waitFor(/listening on/, 30_000)
    expect(await Promise.race([indexer.exited, sleep(60_000).then(() => 'still running')])).toBe(0)
    expect(await countBlocks(db, { network: 'late' })).toBe(3000)
  }, 120_000)
})
