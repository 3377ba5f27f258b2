import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { fixturePath } from '@uncle-rpc/testing'
import { benchRoot, cpuMicros, formatRow, httpRow, requireTools, type Row } from './rpcLoad.js'
import { createBenchDatabase } from './rpcSetup.js'
import { parseLoadFlags, startServerProcess, stopServerProcess } from './serverProcess.js'

// npm run bench:verified-failover -- [--duration 5] [--warmup 2] [--rounds 3] [--connections 16] [--threads 2] [--server-core 1] [--load-core 0]
// What verifying the failover partner's answers costs: every call is for a block this index does
// not hold (two networks with nothing indexed), so each is forwarded to the partner (the bundled
// sample node serving the mainnet epoch 0 era1 file, not pinned), once with verifyPartner false
// (the call as is) and once with it on (the proof's three calls in one batch, checked here).
// Rows alternate over --rounds rounds: rate, latency, the rpc's CPU per call and the partner's.

const { load, rounds, serverCore } = parseLoadFlags(16)
const log = (line: string) => process.stderr.write(`${line}\n`)
const cli = join(benchRoot, 'apps/cli/bin/uncle-rpc.js')

async function main(): Promise<void> {
  requireTools()
  const bench = await createBenchDatabase()
  const partner = startServerProcess(undefined, process.execPath, [cli, 'sample-node', '--port', '0', '--chain', fixturePath('mainnet-era1/mainnet-00000-5ec1ffb8.era1')], /listening on http:\/\/127\.0\.0\.1:(\d+)/)
  let server: ReturnType<typeof startServerProcess> | undefined
  try {
    const partnerUrl = `http://127.0.0.1:${await partner.port}/`
    const network = (name: string, verifyPartner: boolean) => ({ name, chainId: 1, rpcUrl: 'http://127.0.0.1:1', confirmations: 0, partnerUrl, verifyPartner })
    const config = bench.file('failover-networks.json', [JSON.stringify({ networks: [network('unverified', false), network('verified', true)] })])
    const { key } = await createApiKey(bench.database.db, { ...bench.limits, plan: 'growth', failover: true, label: 'bench failover' })
    server = startServerProcess(serverCore, process.execPath, [cli, 'rpc', '--config', config, '--port', '0'], /rpc listening on http:\/\/127\.0\.0\.1:(\d+)\//, { DATABASE_URL: bench.url })
    const port = await server.port
    log(`every known uncle of mainnet 0..8191 asked of the partner; rpc on core ${serverCore}, wrk -t${load.threads} -c${load.connections} on core ${load.loadCore}; ${load.duration} s runs after ${load.warmup} s warmup; ${rounds} alternating rounds; load average ${readFileSync('/proc/loadavg', 'utf8').trim()}`)
    const kinds = ['unverified', 'verified'] as const
    const runs: Record<(typeof kinds)[number], { row: Row; partnerUs: number }[]> = { unverified: [], verified: [] }
    for (let round = 1; round <= rounds; round++)
      for (const kind of round % 2 === 1 ? kinds : [...kinds].reverse()) {
        const before = cpuMicros(partner.child.pid) ?? Number.NaN
        const row = await httpRow(`forwarded, verifyPartner ${kind === 'verified'} (round ${round})`, `http://127.0.0.1:${port}/${kind}/v3/${key}`, bench.randomFile, load, { serverPid: server.child.pid })
        const spent = (cpuMicros(partner.child.pid) ?? Number.NaN) - before
        // Note: the partner's CPU over the warmup and the run, per call of both.
        const partnerUs = spent / (row.rate * (load.duration + load.warmup))
        row.note = `partner ${partnerUs.toFixed(0)} µs CPU per forwarded call (approx.)`
        runs[kind].push({ row, partnerUs })
        log(formatRow(row))
      }
    const check = await fetch(`http://127.0.0.1:${port}/verified/v3/${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: readFileSync(bench.randomFile, 'utf8').split('\n')[0]! })
    if (check.headers.get('x-failover') !== 'partner') throw new Error('the verified call was not answered by the partner')
    const mid = (values: number[]) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!
    const of = (kind: (typeof kinds)[number], value: (r: { row: Row; partnerUs: number }) => number) => mid(runs[kind].map(value))
    const summary = (label: string, value: (r: { row: Row; partnerUs: number }) => number, unit: string, digits = 2) =>
      `${label}: unverified ${of('unverified', value).toFixed(digits)} ${unit}, verified ${of('verified', value).toFixed(digits)} ${unit} (${(of('verified', value) / of('unverified', value)).toFixed(2)}×)`
    process.stdout.write(
      [
        '',
        '| run | rate | p50 ms | p99 ms | server µs CPU/req | |',
        '| --- | ---: | ---: | ---: | ---: | --- |',
        ...kinds.flatMap((k) => runs[k].map((r) => formatRow(r.row))),
        '',
        'partner calls per forwarded call: unverified 1, verified 3 (one HTTP request, one batch, either way)',
        summary('rate (medians)', (r) => r.row.rate, 'calls/s', 0),
        summary('latency p50', (r) => r.row.p50, 'ms'),
        summary('latency p99', (r) => r.row.p99, 'ms'),
        summary('rpc CPU per call', (r) => r.row.cpuUsPerRequest ?? Number.NaN, 'µs', 0),
        summary('partner CPU per call', (r) => r.partnerUs, 'µs', 0),
        '',
      ].join('\n'),
    )
  } finally {
    if (server !== undefined) await stopServerProcess(server.child)
    await stopServerProcess(partner.child)
    await bench.drop()
  }
}

await main()
