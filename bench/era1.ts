import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { epochSize } from '@uncle-rpc/chain'
import { createDb } from '@uncle-rpc/db'
import { type TableChecksums, tableChecksums } from '@uncle-rpc/db/chain'
import { createTestDatabase } from '@uncle-rpc/db/testing'
import { spawnCli } from '@uncle-rpc/testing'
import { sql } from 'drizzle-orm'
import { writeSyntheticEra1Dir } from '../apps/indexer/src/_test/syntheticEra1.js'

// npm run bench:era1 [-- --blocks 500000 --seed 5 --indexer-flags "--era1-verify-threads 2"]
// One synthetic chain, ingested twice by ONE indexer process each into a fresh database: from
// era1 files (no node) and from the sample node serving the same chain (node path). Prints
// blocks/s of each, the ratio, each process's peak RSS and the database bytes per block.
// Ingest time is the indexer's own (from "starting indexer" to "indexer stopped" in its log),
// so process start-up (tsx) is left out of both. Everything shares this machine's cores.

const { values: flags } = parseArgs({
  options: {
    blocks: { type: 'string', default: '500000' },
    seed: { type: 'string', default: '5' },
    'indexer-flags': { type: 'string', default: '' },
  },
})
const blocks = Number(flags.blocks)
const seed = Number(flags.seed)
// Note: given to the era1 run's indexer only (e.g. --era1-verify-threads, --era1-concurrency).
const era1Flags = flags['indexer-flags'].split(' ').filter((f) => f !== '')
const log = (line: string) => process.stderr.write(`${line}\n`)

const dir = join(tmpdir(), `uncle-rpc-bench-era1-${blocks}-${seed}`)
if (!existsSync(dir) || readdirSync(dir).length < Math.ceil(blocks / epochSize)) {
  mkdirSync(dir, { recursive: true })
  const started = performance.now()
  await writeSyntheticEra1Dir({ dir, blocks, seed })
  log(`wrote ${Math.ceil(blocks / epochSize)} era1 files to ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

type Run = { label: string; seconds: number; peakRssMb: number; bytesPerBlock: number; checksums: TableChecksums }

async function ingest(label: string, network: Record<string, unknown>, extraFlags: string[] = []): Promise<Run> {
  const config = join(tmpdir(), `uncle-rpc-bench-era1-${process.pid}-${label}.json`)
  writeFileSync(config, JSON.stringify({ networks: [{ name: 'bench', chainId: 1337, fromBlock: 0, toBlock: blocks - 1, confirmations: 0, ...network }] }))
  const database = await createTestDatabase()
  try {
    const indexer = spawnCli(['indexer', '--config', config, '--exit-when-done', ...extraFlags], { env: { DATABASE_URL: database.url, LOG_LEVEL: 'info' } })
    const code = await indexer.exited
    const lines = indexer.stderr().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; time: number; peak_rss_mb?: number })
    const start = lines.find((l) => l.msg === 'starting indexer')
    const stop = lines.find((l) => l.msg === 'indexer stopped')
    if (code !== 0 || !start || !stop) throw new Error(`${label}: indexer exited ${code}\n${indexer.stderr().slice(-2000)}`)
    const { db, close } = createDb({ url: database.url, max: 1 })
    try {
      const checksums = await tableChecksums(db, { network: 'bench' })
      if (checksums.blocks !== blocks) throw new Error(`${label}: ${checksums.blocks} of ${blocks} blocks stored`)
      const size = await db.execute<{ bytes: string }>(
        sql`select (pg_total_relation_size('blocks') + pg_total_relation_size('uncles') + pg_total_relation_size('indexed_ranges'))::text as bytes`,
      )
      const seconds = (stop.time - start.time) / 1000
      const run = { label, seconds, peakRssMb: stop.peak_rss_mb ?? 0, bytesPerBlock: Number(size.rows[0]?.bytes) / blocks, checksums }
      log(`${label}: ${seconds.toFixed(1)} s, ${Math.round(blocks / seconds)} blocks/s, peak RSS ${run.peakRssMb} MB`)
      return run
    } finally {
      await close()
    }
  } finally {
    await database.drop()
  }
}

const era1 = await ingest('era1', { era1: dir }, era1Flags)
const node = spawnCli(['sample-node', '--port', '0', '--synthetic', String(blocks), '--seed', String(seed), '--chain-id', '1337'])
let nodePath: Run
try {
  const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 300_000))[1] as string
  nodePath = await ingest('node', { rpcUrl: url })
} finally {
  await node.stop()
}
const same = JSON.stringify(era1.checksums) === JSON.stringify(nodePath.checksums)
if (!same) throw new Error('the two runs stored different chains')

const rate = (r: Run) => Math.round(blocks / r.seconds)
process.stdout.write(`${blocks} synthetic blocks (${era1.checksums.uncles} uncles), one indexer process each, same chain (checksums equal)\n\n`)
process.stdout.write('| source | ingest time | blocks/s | peak RSS | DB bytes/block (blocks+uncles+ranges, with indexes) |\n|---|---|---|---|---|\n')
for (const r of [era1, nodePath])
  process.stdout.write(`| ${r.label} | ${r.seconds.toFixed(1)} s | ${rate(r)} | ${r.peakRssMb} MB | ${r.bytesPerBlock.toFixed(0)} |\n`)
process.stdout.write(`\nera1 / node: ${(rate(era1) / rate(nodePath)).toFixed(2)}×   (goals: era1 ≥ 25,000 blocks/s, ≥ 3× node; node ≥ 8,000 blocks/s)\n`)
