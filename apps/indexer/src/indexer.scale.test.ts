import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { canonicalBlocks, countBlocks, listIndexedRanges } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, runCli, spawnCli } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test } from 'vitest'

// Acceptance of scaling out: three indexer processes on one 40,000-block synthetic network,
// sharing Postgres and Redis, split its 40 range jobs between them. (Speed-up over one process:
// bench/indexer-scale.ts; speeds are measured there, not asserted here.)

const blocks = 40_000

describe('three indexer processes on one network', () => {
  const processes: CliProcess[] = []
  const databases: OpenTestDatabase[] = []

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()))
    await Promise.all(databases.map((d) => d.close()))
  })

  test('default: every block written exactly once, no gaps, every process did part of the work', async () => {
    const database = await openTestDatabase({ max: 2 })
    databases.push(database)
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', String(blocks), '--seed', '5'])
    processes.push(node)
    const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1] as string
    const config = join(tmpdir(), `uncle-rpc-scale-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(
      config,
      JSON.stringify({ networks: [{ name: 'scale', chainId: 1337, rpcUrl: url, fromBlock: 0, toBlock: blocks - 1, confirmations: 0 }] }),
    )
    const env = { DATABASE_URL: database.url, LOG_LEVEL: 'info' }
    const started = performance.now()
    const indexers = [0, 1, 2].map(() => spawnCli(['indexer', '--config', config, '--exit-when-done', '--range-size', '1000'], { env }))
    processes.push(...indexers)
    expect(await Promise.all(indexers.map((p) => p.exited))).toEqual([0, 0, 0])
    const seconds = (performance.now() - started) / 1000

    // Each process's own count of the blocks it fetched and wrote (its last log line).
    const shares = indexers.map((p) => {
      const line = p
        .stderr()
        .split('\n')
        .find((l) => l.includes('"msg":"indexer stopped"'))
      const parsed = JSON.parse(line ?? '{}') as { blocks_indexed?: number; blocks_written?: number }
      return { fetched: parsed.blocks_indexed ?? -1, written: parsed.blocks_written ?? -1 }
    })
    process.stdout.write(
      `scale: 3 processes indexed ${blocks} blocks in ${seconds.toFixed(1)} s (${Math.round(blocks / seconds)} blocks/s); shares ${shares.map((s) => s.written).join(' + ')}\n`,
    )
    expect(shares.reduce((sum, s) => sum + s.fetched, 0)).toBe(blocks)
    expect(shares.reduce((sum, s) => sum + s.written, 0)).toBe(blocks)
    for (const share of shares) expect(share.written).toBeGreaterThan(0)

    const { db } = database
    expect(await countBlocks(db, { network: 'scale' })).toBe(blocks)
    const stored = await canonicalBlocks(db, { network: 'scale', from: 0n, to: BigInt(blocks) })
    expect(stored.length).toBe(blocks)
    expect(stored.every((b, i) => b.number === BigInt(i) && (i === 0 || b.parentHash === stored[i - 1]?.hash))).toBe(true)
    expect(await listIndexedRanges(db, { network: 'scale' })).toEqual([{ from: 0n, to: BigInt(blocks - 1) }])
    const status = await runCli(['status', '--config', config], { env })
    expect(status.stdout).toContain('gaps: none')
    expect(status.stdout).toContain('0 waiting, 0 active, 0 retrying, 0 failed')
  }, 150_000)
})
