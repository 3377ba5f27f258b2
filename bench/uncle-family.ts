import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { toQuantity } from '@uncle-rpc/chain'
import { benchRoot, formatRow, httpRow, requireTools, type Row } from './rpcLoad.js'
import { createBenchDatabase } from './rpcSetup.js'
import { parseLoadFlags, startServerProcess, stopServerProcess } from './serverProcess.js'

// npm run bench:uncle-family -- [--duration 5] [--warmup 2] [--rounds 3] [--connections 64] [--threads 2] [--server-core 1] [--load-core 0]
// The uncle family's cached answers per core against eth_getUncleByBlockHashAndIndex's: one rpc
// process pinned to --server-core (`taskset`), wrk on --load-core, bodies over every known uncle
// of mainnet 0..8191 (and its block), confirmations 0 so the warmup caches every answer. Rows
// alternate over --rounds rounds; each ratio is of medians, by rate and by the server's CPU per request.

const { load, rounds, serverCore } = parseLoadFlags(64)
const log = (line: string) => process.stderr.write(`${line}\n`)
const body = (id: number, method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id, method, params })

async function main(): Promise<void> {
  requireTools()
  const bench = await createBenchDatabase()
  const { uncles, file } = bench
  const blocks = [...new Map(uncles.map((u) => [u.blockHash, u.blockNumber])).entries()]
  const methods = [
    { name: 'eth_getUncleByBlockHashAndIndex (baseline)', bodies: bench.randomFile },
    { name: 'eth_getUncleByBlockNumberAndIndex', bodies: file('by-number.txt', uncles.map((u, i) => body(i, 'eth_getUncleByBlockNumberAndIndex', [toQuantity(u.blockNumber), u.index]))) },
    { name: 'eth_getUncleCountByBlockHash', bodies: file('count-by-hash.txt', blocks.map(([hash], i) => body(i, 'eth_getUncleCountByBlockHash', [hash]))) },
    { name: 'eth_getUncleCountByBlockNumber', bodies: file('count-by-number.txt', blocks.map(([, n], i) => body(i, 'eth_getUncleCountByBlockNumber', [toQuantity(n)]))) },
  ]
  const server = startServerProcess(
    serverCore,
    process.execPath,
    [join(benchRoot, 'apps/cli/bin/uncle-rpc.js'), 'rpc', '--config', bench.config, '--port', '0'],
    /rpc listening on http:\/\/127\.0\.0\.1:(\d+)\//,
    { DATABASE_URL: bench.url },
  )
  try {
    const url = `http://127.0.0.1:${await server.port}/v3/${bench.key}`
    log(`${uncles.length} uncles in ${blocks.length} blocks; server on core ${serverCore}, wrk -t${load.threads} -c${load.connections} on core ${load.loadCore}; ${load.duration} s runs after ${load.warmup} s warmup; ${rounds} alternating rounds; load average ${readFileSync('/proc/loadavg', 'utf8').trim()}`)
    // Every answer asked once first (in batches of 50, each tried up to 5 times: a cold count or
    // by-number call is a query of its own, and a loaded machine may miss the read deadline), so
    // that each row measures cached answers only.
    for (const m of methods) {
      const bodies = readFileSync(m.bodies, 'utf8').trim().split('\n')
      for (let i = 0; i < bodies.length; i += 50) {
        let warmed = false
        for (let attempt = 0; attempt < 5 && !warmed; attempt++) {
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `[${bodies.slice(i, i + 50).join(',')}]` })
          warmed = res.ok && !(await res.text()).includes('"error"')
        }
        if (!warmed) throw new Error(`${m.name}: warming the cache failed`)
      }
    }
    const runs = new Map<string, Row[]>(methods.map((m) => [m.name, []]))
    for (let round = 1; round <= rounds; round++)
      for (const m of round % 2 === 1 ? methods : [...methods].reverse()) {
        const row = await httpRow(`${m.name}, cached (round ${round})`, url, m.bodies, load, { serverPid: server.child.pid })
        runs.get(m.name)!.push(row)
        log(formatRow(row))
      }
    const mid = (rows: Row[], of: (r: Row) => number) => rows.map(of).sort((a, b) => a - b)[Math.floor((rows.length - 1) / 2)]!
    const cpu = (r: Row) => r.cpuUsPerRequest ?? Number.NaN
    const base = runs.get(methods[0]!.name)!
    const lines = methods.slice(1).map((m) => {
      const rows = runs.get(m.name)!
      const byRate = mid(rows, (r) => r.rate) / mid(base, (r) => r.rate)
      const byCpu = mid(base, cpu) / mid(rows, cpu)
      return `${byRate >= 0.9 ? 'PASS' : 'FAIL'}  ${m.name} / eth_getUncleByBlockHashAndIndex, cached: ${byRate.toFixed(2)}× by rate, ${byCpu.toFixed(2)}× by server CPU per request (target ≥ 0.9×; medians ${Math.round(mid(rows, (r) => r.rate))} / ${Math.round(mid(base, (r) => r.rate))} req/s)`
    })
    process.stdout.write(['', '| run | rate | p50 ms | p99 ms | server µs CPU/req | |', '| --- | ---: | ---: | ---: | ---: | --- |', ...[...runs.values()].flat().map(formatRow), '', ...lines, ''].join('\n'))
  } finally {
    await stopServerProcess(server.child)
    await bench.drop()
  }
}

await main()
