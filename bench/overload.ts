import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { quantile } from './openLoop.js'
import { benchRoot, requireTools } from './rpcLoad.js'
import { createBenchDatabase } from './rpcSetup.js'

// npm run bench:overload -- [--connections 2000] [--duration 15] [--variant='--max-event-loop-lag-ms 0' …] [--root <checkout>]
// One `uncle-rpc rpc` process (pinned to --server-core, default flags plus each --variant's, cache
// on) under wrk with --connections connections (pinned to --load-core; `--timeout 30s`, so a slow
// answer is measured rather than dropped) posting random known uncles for --duration s. Meanwhile
// GET /health on the public port and GET /health on the admin port (--metrics-port) are polled
// every 500 ms, each answer within 200 ms counting as ok. Prints answered (200) and shed or failed
// requests, p50/p99/max, the polls, and RSS before, at the end of the load and 10 s later.
// --root runs the rpc of another checkout (e.g. an older commit, for before figures).

const { values: flags } = parseArgs({
  options: {
    connections: { type: 'string', default: '2000' },
    duration: { type: 'string', default: '15' },
    threads: { type: 'string', default: '2' },
    'server-core': { type: 'string', default: '1' },
    'load-core': { type: 'string', default: '0' },
    variant: { type: 'string', multiple: true, default: [''] },
    root: { type: 'string', default: benchRoot },
  },
})
const root = resolve(flags.root)
const log = (line: string) => process.stderr.write(`${line}\n`)
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return line ? Number(line[1]) / 1024 : 0
}

function startRpc(config: string, databaseUrl: string, extra: string[]): Promise<{ child: ChildProcess; port: number; metrics: string }> {
  const args = ['-c', flags['server-core'], process.execPath, 'apps/cli/bin/uncle-rpc.js', 'rpc', '--config', config, '--port', '0', '--metrics-port', '0', ...extra]
  const child = spawn('taskset', args, { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((ok, fail) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const port = /rpc listening on http:\/\/[^:]+:(\d+)/.exec(out)
      const metrics = /rpc metrics on (\S+)/.exec(out)
      if (port && metrics) ok({ child, port: Number(port[1]), metrics: metrics[1]! })
    })
    child.once('exit', (code) => fail(new Error(`rpc exited with ${code}: ${out}`)))
  })
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done()
    child.once('exit', () => done())
    child.kill('SIGTERM')
  })
}

/** GET `url` on a fresh connection: its time (ms) and whether it answered 200 within `withinMs`. */
function poll(url: string, withinMs: number): Promise<{ ms: number; ok: boolean }> {
  const started = performance.now()
  return new Promise((done) => {
    const finish = (ok: boolean) => {
      const ms = performance.now() - started
      done({ ms, ok: ok && ms <= withinMs })
    }
    const req = request(url, { agent: false, timeout: 10_000 }, (res) => {
      res.resume()
      res.on('end', () => finish(res.statusCode === 200))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', () => finish(false))
    req.end()
  })
}

type WrkSummary = { requests: number; durationUs: number; p50Us: number; p99Us: number; maxUs: number; status: number; connect: number; read: number; write: number; timeout: number }

function wrk(url: string, bodiesFile: string): Promise<WrkSummary> {
  const script = join(benchRoot, 'bench', 'wrk', 'bodies.lua')
  const args = ['-c', flags['load-core'], 'wrk', `-t${flags.threads}`, `-c${flags.connections}`, `-d${flags.duration}s`, '--timeout', '30s', '-s', script, url, '--', bodiesFile]
  return new Promise((done, fail) =>
    execFile('taskset', args, { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'))
      if (error || line === undefined) return fail(new Error(`wrk failed: ${error?.message ?? ''}\n${stdout}\n${stderr}`))
      done(JSON.parse(line) as WrkSummary)
    }),
  )
}

type Row = { variant: string; summary: WrkSummary; shed: number; health: { ok: number; n: number; max: number }; admin: { ok: number; n: number; max: number }; rss: [number, number, number] }

async function main(): Promise<void> {
  requireTools()
  const bench = await createBenchDatabase({ name: 'overload', plan: 'custom' })
  const { key, config, randomFile: bodiesFile } = bench
  const rows: Row[] = []
  try {
    log(`rpc from ${root} on core ${flags['server-core']}; wrk -t${flags.threads} -c${flags.connections} -d${flags.duration}s on core ${flags['load-core']}`)

    for (const variant of flags.variant) {
      const rpc = await startRpc(config, bench.url, variant.split(' ').filter(Boolean))
      try {
        const scrapeShed = async () => {
          const text = await (await fetch(rpc.metrics)).text()
          return [...text.matchAll(/^uncle_rpc_shed_total\{[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0)
        }
        // Warm the cache and the process: every uncle once.
        for (const line of readFileSync(bodiesFile, 'utf8').split('\n').filter(Boolean))
          await fetch(`http://127.0.0.1:${rpc.port}/v3/${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: line })
        await sleep(1000)
        const rssBefore = rssMb(rpc.child.pid!)
        const shedBefore = await scrapeShed()
        // Note: a poll every 500 ms whether or not the previous one answered (a stuck probe must not hide the next ones).
        const healthPolls: Promise<{ ms: number; ok: boolean }>[] = []
        const adminPolls: Promise<{ ms: number; ok: boolean }>[] = []
        const poller = setInterval(() => {
          healthPolls.push(poll(`http://127.0.0.1:${rpc.port}/health`, 200))
          adminPolls.push(poll(rpc.metrics.replace(/\/metrics$/, '/health'), 200))
        }, 500)
        const summary = await wrk(`http://127.0.0.1:${rpc.port}/v3/${key}`, bodiesFile)
        const rssEnd = rssMb(rpc.child.pid!)
        clearInterval(poller)
        const [health, admin] = [await Promise.all(healthPolls), await Promise.all(adminPolls)]
        await sleep(10_000)
        const rssAfter = rssMb(rpc.child.pid!)
        const shed = (await scrapeShed()) - shedBefore
        const stats = (polls: { ms: number; ok: boolean }[]) => ({ ok: polls.filter((p) => p.ok).length, n: polls.length, max: quantile(polls.map((p) => p.ms).sort((a, b) => a - b), 1) })
        const row: Row = { variant: variant || 'default flags', summary, shed, health: stats(health), admin: stats(admin), rss: [rssBefore, rssEnd, rssAfter] }
        rows.push(row)
        log(JSON.stringify(row))
      } finally {
        await stop(rpc.child)
      }
    }
  } finally {
    await bench.drop()
  }
  const ms = (us: number) => (us / 1000).toFixed(0)
  const pass = (r: Row) =>
    r.summary.maxUs <= 5_000_000 && r.summary.p99Us <= 1_000_000 && r.rss[2] - r.rss[0] <= 60 && r.summary.timeout + r.summary.connect === 0 ? 'PASS' : 'FAIL'
  process.stdout.write(
    [
      '',
      `wrk -t${flags.threads} -c${flags.connections} -d${flags.duration}s --timeout 30s, random known uncles (cache on), one rpc process`,
      '| rpc flags | requests/s | 200 | shed (503) | other failures | p50 ms | p99 ms | max ms | /health ≤ 200 ms | admin /health ≤ 200 ms | RSS MB before → end → +10 s | |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
      ...rows.map((r) => {
        const s = r.summary
        const other = s.connect + s.read + s.write + s.timeout + Math.max(0, s.status - r.shed)
        return `| ${r.variant} | ${Math.round(s.requests / (s.durationUs / 1e6))} | ${s.requests - s.status} | ${r.shed} | ${other} | ${ms(s.p50Us)} | ${ms(s.p99Us)} | ${ms(s.maxUs)} | ${r.health.ok}/${r.health.n} (max ${r.health.max.toFixed(0)} ms) | ${r.admin.ok}/${r.admin.n} (max ${r.admin.max.toFixed(0)} ms) | ${r.rss.map((v) => v.toFixed(0)).join(' → ')} | ${pass(r)} |`
      }),
      '(PASS: max ≤ 5 s, p99 ≤ 1 s, no connect errors or timeouts, RSS 10 s after within +60 MB of before)',
      '',
    ].join('\n'),
  )
}

await main()
