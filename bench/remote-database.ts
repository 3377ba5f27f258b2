import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createTcpProxy } from '@uncle-rpc/testing'
import { openLoop, quantile } from './openLoop.js'
import { startBenchRpc, stopChild } from './benchRpc.js'
import { benchRoot } from './rpcLoad.js'
import { createBenchDatabase } from './rpcSetup.js'

// npm run bench:remote-database -- [--rate 600] [--duration 15] [--delays 0,25] [--variant='--db-pool 4' …] [--root <checkout>]
// The cold path with the database far away: a fresh database seeded with the 1,410 mainnet uncles
// of blocks 0..8191, reached through a TCP proxy that adds `delay` ms in each direction (a
// database in another zone: 25 ms each way). One `uncle-rpc rpc` process with its cache off
// (--cache-entries 0) and otherwise default flags (plus each --variant's), and an open-loop load
// of random known uncles at --rate per second for --duration s (bench/openLoop.ts). Prints
// answered, failed, p50, p99 and max per delay and variant. --root runs the rpc of another
// checkout (e.g. an older commit, for before figures).

const { values: flags } = parseArgs({
  options: {
    rate: { type: 'string', default: '600' },
    duration: { type: 'string', default: '15' },
    delays: { type: 'string', default: '0,25' },
    variant: { type: 'string', multiple: true, default: [''] },
    root: { type: 'string', default: benchRoot },
  },
})
const rate = Number(flags.rate)
const seconds = Number(flags.duration)
const delays = flags.delays.split(',').map(Number)
const root = resolve(flags.root)
const log = (line: string) => process.stderr.write(`${line}\n`)

type Row = { delay: number; variant: string; sent: number; answered: number; failed: number; p50: number; p99: number; max: number; reasons: string }

async function main(): Promise<void> {
  const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')
  const bench = await createBenchDatabase({ name: 'remote', plan: 'custom' })
  const { key, config, uncles } = bench
  const rows: Row[] = []
  try {
    const body = (n: number) => {
      const u = uncles[Math.floor(Math.random() * uncles.length)]!
      return JSON.stringify({ jsonrpc: '2.0', id: n, method: 'eth_getUncleByBlockHashAndIndex', params: [u.blockHash, u.index] })
    }
    log(`${uncles.length} known uncles; rpc from ${root}; ${rate} req/s for ${seconds} s, open loop, cache off`)

    for (const delay of delays)
      for (const variant of flags.variant) {
        const proxy = await createTcpProxy({ host: base.hostname, port: Number(base.port || 5432) }, { delayMs: delay })
        const proxied = new URL(bench.url)
        proxied.hostname = '127.0.0.1'
        proxied.port = String(proxy.port)
        const rpc = await startBenchRpc({ root, config, databaseUrl: proxied.toString(), args: ['--cache-entries', '0', ...variant.split(' ').filter(Boolean)] })
        try {
          const result = await openLoop({ url: `http://127.0.0.1:${rpc.port}/v3/${key}`, rate, seconds, body })
          const reasons = [...result.reasons].map(([reason, n]) => `${reason}: ${n}`).join(', ')
          const row = {
            delay,
            variant: variant || 'default flags',
            sent: result.sent,
            answered: result.answered,
            failed: result.failed,
            p50: quantile(result.latencies, 0.5),
            p99: quantile(result.latencies, 0.99),
            max: result.latencies.at(-1) ?? Number.NaN,
            reasons,
          }
          rows.push(row)
          log(`delay ${delay} ms, ${row.variant}: ${row.answered}/${row.sent} answered, p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms${reasons ? ` (${reasons})` : ''}`)
        } finally {
          await stopChild(rpc.child)
          await proxy.close()
        }
      }
  } finally {
    await bench.drop()
  }
  const pass = (r: Row) => (r.delay === 25 && r.variant === 'default flags' ? (r.failed === 0 && r.p99 <= 400 ? ' PASS' : ' FAIL') : '')
  process.stdout.write(
    [
      '',
      `random known uncles, cache off, ${rate} req/s open loop for ${seconds} s (latency from each request's due time)`,
      '| delay each way | rpc flags | answered | failed | p50 ms | p99 ms | max ms |',
      '| ---: | --- | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map((r) => `| ${r.delay} ms | ${r.variant} | ${r.answered} of ${r.sent} | ${r.failed} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(0)} |${pass(r)}`),
      '(PASS: every request answered and p99 ≤ 400 ms with the database 25 ms away and default flags)',
      '',
    ].join('\n'),
  )
}

await main()
