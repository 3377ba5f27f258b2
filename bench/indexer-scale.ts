import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createDb } from '@uncle-rpc/db'
import { countBlocks } from '@uncle-rpc/db/chain'
import { createTestDatabase } from '@uncle-rpc/db/testing'
import { spawnCli } from '@uncle-rpc/testing'

// npx tsx bench/indexer-scale.ts [--blocks 100000] [--processes 1,2,3] [--rounds 1]
// Backfill of one synthetic network (the bundled sample node) by 1, 2, 3… indexer processes
// sharing one Postgres database and Redis: wall time and blocks/s for each count, and the
// speed-up over one process. Every process, the node, Postgres and Redis share this machine's
// cores, so on a small machine the speed-up says more about CPU than about the design.

const { values: flags } = parseArgs({
  options: {
    blocks: { type: 'string', default: '100000' },
    processes: { type: 'string', default: '1,3' },
    rounds: { type: 'string', default: '1' },
  },
})
const blocks = Number(flags.blocks)
const counts = flags.processes.split(',').map(Number)
const rounds = Number(flags.rounds)
const log = (line: string) => process.stderr.write(`${line}\n`)

const node = spawnCli(['sample-node', '--port', '0', '--synthetic', String(blocks), '--seed', '5'])
const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 120_000))[1] as string
const config = join(tmpdir(), `uncle-rpc-bench-scale-${process.pid}.json`)
writeFileSync(
  config,
  JSON.stringify({ networks: [{ name: 'bench', chainId: 1337, rpcUrl: url, fromBlock: 0, toBlock: blocks - 1, confirmations: 0 }] }),
)

const results: { processes: number; seconds: number[] }[] = []
try {
  for (const n of counts) {
    const seconds: number[] = []
    for (let round = 0; round < rounds; round++) {
      const database = await createTestDatabase()
      try {
        const started = performance.now()
        const indexers = Array.from({ length: n }, () =>
          spawnCli(['indexer', '--config', config, '--exit-when-done'], { env: { DATABASE_URL: database.url } }),
        )
        const codes = await Promise.all(indexers.map((p) => p.exited))
        const elapsed = (performance.now() - started) / 1000
        const { db, close } = createDb({ url: database.url, max: 1 })
        const stored = await countBlocks(db, { network: 'bench' }).finally(close)
        if (codes.some((c) => c !== 0) || stored !== blocks)
          throw new Error(`${n} processes: exit codes ${codes.join(',')}, ${stored} of ${blocks} blocks stored`)
        seconds.push(elapsed)
        log(`${n} process(es), round ${round + 1}: ${elapsed.toFixed(1)} s`)
      } finally {
        await database.drop()
      }
    }
    results.push({ processes: n, seconds })
  }
} finally {
  await node.stop()
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const base = median(results[0]?.seconds ?? [1])
process.stdout.write(`| processes | wall time (median of ${rounds}) | blocks/s | speed-up |\n|---|---|---|---|\n`)
for (const r of results) {
  const s = median(r.seconds)
  process.stdout.write(`| ${r.processes} | ${s.toFixed(1)} s | ${Math.round(blocks / s)} | ${(base / s).toFixed(2)}× |\n`)
}
