import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from '@uncle-rpc/chain'
import { getUncle, latestReorgId, listIndexedRanges, replacedBlocks, reorgsSince } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, runCli, spawnCli } from '@uncle-rpc/testing'
import { sleep } from '@uncle-rpc/process'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { compareWithNode, nodeBlocks, rpcBatch } from './_test/compareWithNode.js'

// Acceptance of live head following: a real sample node producing 300 blocks, one every 100 ms,
// with reorgs up to 6 deep (some deeper than the 3 confirmations), real indexer processes
// following it for 30 s, then the database compared with the node block by block.


function writeConfig(networks: object[]): string {
  const path = join(tmpdir(), `uncle-rpc-live-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(path, JSON.stringify({ networks }))
  return path
}

describe('indexer following a live chain with reorgs', () => {
  const processes: CliProcess[] = []
  const databases: OpenTestDatabase[] = []

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()))
    await Promise.all(databases.map((d) => d.close()))
  })

  test('default: after 300 blocks (30 s) of blocks and reorgs (and a killed head follower) the canonical chain equals the node, uncles stored, replaced blocks kept', async () => {
    const database = await openTestDatabase({ max: 2 })
    databases.push(database)
    // 300 blocks at 100 ms: production stops after 30 s.
    const node = spawnCli([
      'sample-node',
      '--port',
      '0',
      '--synthetic',
      '2000',
      '--seed',
      '11',
      '--block-time',
      '100',
      '--reorg-rate',
      '0.05',
      '--reorg-depth',
      '6',
      '--stop-after',
      '300',
    ])
    processes.push(node)
    const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1] as string
    const network = 'live'
    const config = writeConfig([{ name: network, chainId: 1337, rpcUrl: url, fromBlock: 0, confirmations: 3 }])
    // Two indexer processes: one holds the head (a lease in Redis), both work range jobs. The
    // holder is killed after 10 s; the other takes the head over.
    const startIndexer = () =>
      spawnCli(['indexer', '--config', config, '--poll-interval-ms', '100', '--lock-duration-ms', '3000'], {
        env: { DATABASE_URL: database.url, LOG_LEVEL: 'info' },
      })
    const pair = [startIndexer(), startIndexer()]
    processes.push(...pair)
    const holder = await Promise.race(pair.map((p) => p.waitFor(/"msg":"following the head"/, 30_000).then(() => p)))
    const indexer = pair.find((p) => p !== holder) as CliProcess
    await sleep(10_000)
    // One head follower at a time.
    expect(indexer.stderr()).not.toMatch(/"msg":"following the head"/)
    expect(await holder.stop('SIGKILL')).toBe('SIGKILL')
    const killedAt = Date.now()
    await indexer.waitFor(/"msg":"following the head"/, 30_000)
    process.stdout.write(`live: the second process took the head over ${Date.now() - killedAt} ms after the first was killed\n`)
    const head = BigInt((await node.waitFor(/live chain stopped at head (\d+)/, 80_000))[1] as string)

    const { db } = database
    // Caught up: the stored chain agrees with the node (the follower polls every 100 ms).
    await vi.waitFor(async () => expect((await compareWithNode(db, { network, url, from: 0n, head })).slice(0, 10)).toEqual([]), {
      timeout: 60_000,
      interval: 500,
    })
    expect(await listIndexedRanges(db, { network })).toEqual([{ from: 0n, to: head }])

    // Replaced blocks: kept, not canonical, not the node's block at their height, their uncles answerable.
    const replaced = await replacedBlocks(db, { network })
    const reorgs = await reorgsSince(db, { afterId: 0n, network })
    process.stdout.write(
      `live: head ${head}, ${reorgs.length} reorgs applied (deepest ${Math.max(0, ...reorgs.map((r) => r.depth))}), ${replaced.length} replaced blocks kept\n`,
    )
    expect(replaced.length).toBeGreaterThan(0)
    expect(reorgs.length).toBeGreaterThan(0)
    expect(await latestReorgId(db, { network })).toBe(reorgs.at(-1)?.id)
    const canonicalAtHeights = await nodeBlocks(url, 0n, head)
    const byHash = await rpcBatch<{ hash: Hex; uncles: Hex[] } | null>(
      url,
      replaced.map((r) => ({ method: 'eth_getBlockByHash', params: [r.hash, false] })),
    )
    for (const [i, block] of replaced.entries()) {
      expect(canonicalAtHeights[Number(block.number)]?.hash).not.toBe(block.hash)
      const served = byHash[i]
      expect(served?.hash).toBe(block.hash)
      expect(served?.uncles.length).toBe(block.uncleCount)
      for (const [index, uncleHash] of (served?.uncles ?? []).entries())
        expect((await getUncle(db, { network, blockHash: block.hash, index }))?.hash).toBe(uncleHash)
    }
    expect(await indexer.stop()).toBe(0)
    const status = await runCli(['status', '--config', config], { env: { DATABASE_URL: database.url } })
    expect(status.stdout).toContain('gaps: none')
    expect(status.stdout).toMatch(/reorgs: \d+ \(deepest \d+, \d+ blocks replaced, last at /)
    const logs = holder.stderr() + indexer.stderr()
    const deep = logs.match(/reorg deeper than confirmations/g)?.length ?? 0
    process.stdout.write(`live: ${deep} reorgs deeper than the 3 confirmations were logged at error level\n`)
    // Only deep reorgs are errors; nothing else went wrong.
    const errors = logs
      .split('\n')
      .filter((line) => line.includes('"level":50') && !line.includes('reorg deeper than confirmations'))
    expect(errors).toEqual([])
  }, 150_000)
})
