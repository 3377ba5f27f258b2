import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { cliBin } from '@uncle-rpc/testing'

// npm run bench:era1-write -- [--blocks 262144] [--jobs 1,2]
// The synthetic era1 writer (`uncle-rpc era1 write --synthetic`), end to end as operators run it
// (generation, RLP, snappy, CRC, accumulator, files on disk): blocks/s for each --jobs count,
// snappy-compressed and uncompressed, and the projected time for a mainnet-size chain
// (15,537,394 blocks, 1,897 files). Ratios are against one compressed job.

const mainnetBlocks = 15_537_394
const { values: flags } = parseArgs({
  options: { blocks: { type: 'string', default: '262144' }, jobs: { type: 'string', default: '1,2' } },
})
const blocks = Number(flags.blocks)
const rows: { label: string; rate: number }[] = []
for (const uncompressed of [false, true]) {
  for (const jobs of flags.jobs.split(',').map(Number)) {
    const out = mkdtempSync(join(tmpdir(), 'uncle-rpc-bench-era1-write-'))
    try {
      const started = performance.now()
      execFileSync(
        process.execPath,
        [cliBin, 'era1', 'write', '--synthetic', String(blocks), '--out', out, '--jobs', String(jobs), ...(uncompressed ? ['--uncompressed'] : [])],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      )
      const seconds = (performance.now() - started) / 1000
      rows.push({ label: `${jobs} job${jobs > 1 ? 's' : ''}, ${uncompressed ? 'uncompressed' : 'snappy'}`, rate: blocks / seconds })
      process.stderr.write(`${rows.at(-1)!.label}: ${seconds.toFixed(1)} s\n`)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }
}
const base = rows[0]!.rate
process.stdout.write(`| era1 write, ${blocks} blocks | blocks/s | vs 1 job snappy | projected ${mainnetBlocks} blocks |\n|---|---|---|---|\n`)
for (const r of rows)
  process.stdout.write(`| ${r.label} | ${Math.round(r.rate).toLocaleString('en')} | ${(r.rate / base).toFixed(2)}× | ${(mainnetBlocks / r.rate / 60).toFixed(1)} min |\n`)
