import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createHash } from 'node:crypto'
import { createDb, migrateDatabase, setAccountKeySecret, updateAccountKey } from '@uncle-rpc/db'
import autocannon from 'autocannon'
import pg from 'pg'
import WebSocket from 'ws'
import { derivedUncles, expectedResultJson, seedMainnetUncles } from '../apps/rpc/src/_test/seed.js'
import { createApiKey } from '../apps/rpc/src/access/keys.js'

// npm run bench:rpc -- [--duration 10] [--warmup 3] [--connections 64] [--workers 2] [--skip-anvil] [--metrics-only]
// Every server runs in its own process; this process only generates load (autocannon for HTTP,
// ws clients for WebSocket). Servers: the ceiling (bare node:http, fixed body of an answer's size),
// the naive build (Express + express.json() + one pg query per request), ours (cache on, cache off,
// optionally --workers N) and anvil answering the same null-answer request. --metrics-only: just
// ours with Prometheus metrics off and on (--metrics-port), alternated twice.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    workers: { type: 'string', default: '1' },
    'skip-anvil': { type: 'boolean', default: false },
    'metrics-only': { type: 'boolean', default: false },
  },
})
const duration = Number(flags.duration)
const warmup = Number(flags.warmup)
const connections = Number(flags.connections)
const workers = Number(flags.workers)

type Row = { name: string; rate: number; p50: number; p99: number; unit: string; bad: number; cpuUsPerRequest?: number }

/** CPU time (user + system, µs) a process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return undefined
  // Note: fields after the command name (which may hold spaces) start after the last ')'; utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100
}
const rows: Row[] = []
const log = (line: string) => process.stderr.write(`${line}\n`)

/** Starts a server process and resolves with the port from its first line matching `pattern`. */
function startProcess(command: string, args: string[], pattern: RegExp, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const port = new Promise<number>((resolvePort, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = pattern.exec(out)
      if (match) resolvePort(Number(match[1]))
    })
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${out}`)))
  })
  return { child, port }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done()
    child.once('exit', () => done())
    child.kill('SIGTERM')
  })
}

/**
 * autocannon at `url`, each request's body picked at random from `bodies` (the same cost for
 * every server: autocannon re-encodes each request); a warmup run, then the measured one.
 */
async function http(name: string, url: string, bodies: readonly string[], headers: Record<string, string> = {}, serverPid?: number): Promise<Row> {
  const pick = () => bodies[Math.floor(Math.random() * bodies.length)]!
  const options = {
    url,
    connections,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', ...headers },
    // Note: one fixed body needs no per-request callback (autocannon then reuses the encoded request).
    ...(bodies.length === 1 ? { body: bodies[0] } : { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: pick() }) }] }),
  }
  if (warmup > 0) await autocannon({ ...options, duration: warmup })
  const cpuBefore = cpuMicros(serverPid)
  const result = await autocannon({ ...options, duration })
  const cpuAfter = cpuMicros(serverPid)
  const row: Row = {
    name,
    rate: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    unit: 'req/s',
    bad: result.non2xx + result.errors + result.timeouts,
  }
  // Note: the server's CPU time per request holds steady when other processes load the machine; throughput does not.
  if (cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0) row.cpuUsPerRequest = (cpuAfter - cpuBefore) / result.requests.total
  rows.push(row)
  log(`${name}: ${Math.round(row.rate)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms${row.bad ? `, ${row.bad} failed` : ''}${row.cpuUsPerRequest === undefined ? '' : `, ${row.cpuUsPerRequest.toFixed(1)} µs server CPU per request`}`)
  return row
}

/** `connections` WebSockets, each with one request in flight, for `seconds`: messages/s and latency. */
async function wsRun(url: string, body: () => string, seconds: number): Promise<{ rate: number; p50: number; p99: number }> {
  const latencies: number[] = []
  const end = Date.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const socket = new WebSocket(url)
      await new Promise((ok, fail) => socket.once('open', ok).on('error', fail))
      while (Date.now() < end) {
        const started = performance.now()
        await new Promise<void>((answered) => {
          socket.once('message', () => answered())
          socket.send(body())
        })
        latencies.push(performance.now() - started)
      }
      // Note: wait for the close, so the server has released the connection before the next run.
      await new Promise((closed) => {
        socket.once('close', closed)
        socket.close()
      })
    }),
  )
  latencies.sort((a, b) => a - b)
  const at = (q: number) => Math.round(latencies[Math.floor(q * (latencies.length - 1))]! * 100) / 100
  return { rate: latencies.length / seconds, p50: at(0.5), p99: at(0.99) }
}

async function ws(name: string, url: string, body: () => string): Promise<Row> {
  if (warmup > 0) await wsRun(url, body, warmup)
  const result = await wsRun(url, body, duration)
  const row = { name, ...result, unit: 'msg/s', bad: 0 }
  rows.push(row)
  log(`${name}: ${Math.round(row.rate)} msg/s, p50 ${row.p50} ms, p99 ${row.p99} ms`)
  return row
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolvePort(port))
    })
  })
}

/** Polls anvil until it answers; returns its genesis block hash. */
async function waitForGenesis(url: string): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x0', false] })
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      return ((await res.json()) as { result: { hash: string } }).result.hash
    } catch {
      // Note: not listening yet; try again shortly.
      await new Promise((resolveWait) => setTimeout(resolveWait, 100))
    }
  }
  throw new Error(`anvil did not start at ${url}`)
}

const anvilVersion = '1.7.1'

/**
 * anvil's binary, from its npm platform package. It is not a project dependency: the lockfile
 * would have to list every platform's package, and the registry reachable here serves only
 * Linux ones. The first run installs it into `.cache/anvil` (ignored by git).
 */
function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch
  const name = `@foundry-rs/anvil-${process.platform}-${arch}`
  const prefix = join(dirname(fileURLToPath(import.meta.url)), '..', '.cache', 'anvil')
  const binary = join(prefix, 'node_modules', name, 'bin', 'anvil')
  if (!existsSync(binary)) {
    log(`installing ${name}@${anvilVersion} into ${prefix}`)
    execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `${name}@${anvilVersion}`], { stdio: 'inherit' })
  }
  return binary
}

async function main(): Promise<void> {
  const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')
  const url = new URL(base)
  url.pathname = `/uncle_rpc_bench_${process.pid}`
  await migrateDatabase({ url: url.toString() })
  const database = createDb({ url: url.toString(), max: 2 })
  const children: ChildProcess[] = []
  try {
    await seedMainnetUncles(database.db)
    // Note: limits far above any load here, so the rate limiter is exercised (one Redis script per key and event-loop turn) but never refuses.
    const { key } = await createApiKey(database.db, { plan: 'core', label: 'bench', rpsLimit: 1_000_000_000, dailyLimit: 1_000_000_000_000, batchLimit: 1000 })
    // A key with every restriction at its most expensive: 30 origins and 30 user agents (requests
    // match the last of each), a required secret, and one network.
    const restricted = await createApiKey(database.db, { plan: 'core', label: 'bench restricted', rpsLimit: 1_000_000_000, dailyLimit: 1_000_000_000_000, batchLimit: 1000 })
    const owner = { accountId: restricted.row.accountId, keyId: restricted.row.id }
    await updateAccountKey(database.db, {
      ...owner,
      patch: {
        networks: ['mainnet'],
        allowedOrigins: [...Array.from({ length: 28 }, (_, i) => `https://app${i}.example.com`), '*.dapp.example', 'https://bench.example.com'],
        allowedUserAgents: Array.from({ length: 30 }, (_, i) => `bench-agent-${i}/`),
      },
    })
    await setAccountKeySecret(database.db, { ...owner, secretHash: `0x${createHash('sha256').update('bench secret').digest('hex')}` })
    const browserHeaders = {
      origin: 'https://bench.example.com',
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) bench-agent-29/1.0',
      authorization: `Basic ${Buffer.from(':bench secret').toString('base64')}`,
    }
    const config = join(mkdtempSync(join(tmpdir(), 'uncle-rpc-bench-')), 'networks.json')
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1, rpcUrl: 'http://127.0.0.1:1', confirmations: 0 }] }))

    const uncles = derivedUncles()
    const bodies = uncles.map((u, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_getUncleByBlockHashAndIndex', params: [u.blockHash, u.index] }))
    const randomUncle = () => bodies[Math.floor(Math.random() * bodies.length)]!
    const nullCall = (hash: string) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getUncleByBlockHashAndIndex', params: [hash, '0x0'] })
    let nullRequest = nullCall(`0x${'ab'.repeat(32)}`)
    const sizes = uncles.map((u, i) => `{"jsonrpc":"2.0","id":${i},"result":${expectedResultJson(u.result)}}`.length).sort((a, b) => a - b)
    const answerBytes = sizes[Math.floor(sizes.length / 2)]!
    log(`database ${url.pathname.slice(1)}: 1,410 uncles; median answer ${answerBytes} bytes; ${connections} connections, ${duration} s runs after ${warmup} s warmup`)

    const tsx = ['--import', 'tsx']
    const reference = (mode: string, arg: string) => {
      const started = startProcess(process.execPath, [...tsx, 'bench/rpcReference.ts', mode, '0', arg], /listening (\d+)/)
      children.push(started.child)
      return started
    }
    const ours = (...args: string[]) => {
      const started = startProcess(
        process.execPath,
        ['apps/cli/bin/uncle-rpc.js', 'rpc', '--config', config, '--port', '0', ...args],
        /rpc listening on http:\/\/127\.0\.0\.1:(\d+)\//,
        { DATABASE_URL: url.toString() },
      )
      children.push(started.child)
      return started
    }

    if (flags['metrics-only']) {
      const pair: Row[] = []
      for (let round = 1; round <= 2; round++)
        for (const args of [[], ['--metrics-port', '0']]) {
          const server = ours(...args)
          const name = `ours: HTTP, cache on, metrics ${args.length === 0 ? 'off' : 'on'} (round ${round})`
          pair.push(await http(name, `http://127.0.0.1:${await server.port}/v3/${key}`, bodies))
          await stop(server.child)
        }
      const sum = (on: boolean) => pair.filter((r) => r.name.includes(on ? 'metrics on' : 'metrics off')).reduce((a, r) => a + r.rate, 0)
      process.stdout.write(['', ...rows.map((r) => `| ${r.name} | ${Math.round(r.rate)} ${r.unit} | ${r.p50} | ${r.p99} |`), '', `ours metrics on / off: ${(sum(true) / sum(false)).toFixed(2)}×   (target: within noise, ≥ 0.95×)`, ''].join('\n'))
      return
    }

    // anvil first: its genesis hash makes the null-answer request (anvil answers an unknown hash
    // with -32001 "Resource not found", its genesis block has no uncles: null). For us it is an
    // unknown block: null too, after a lookup (null answers are never cached).
    let anvilRow: Row | undefined
    if (!flags['skip-anvil']) {
      const port = await freePort()
      const anvil = spawn(anvilBinary(), ['--quiet', '--host', '127.0.0.1', '--port', String(port)], { stdio: 'ignore' })
      children.push(anvil)
      const anvilUrl = `http://127.0.0.1:${port}/`
      const genesis = await waitForGenesis(anvilUrl)
      nullRequest = nullCall(genesis)
      const answer = await (await fetch(anvilUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: nullRequest })).text()
      log(`anvil ${anvilUrl}: ${nullRequest} → ${answer}`)
      anvilRow = await http('anvil: null answer (its genesis hash, index 0)', anvilUrl, [nullRequest])
      await stop(anvil)
    }

    const ceiling = reference('ceiling', String(answerBytes))
    const ceilingRow = await http('ceiling: bare node:http, fixed body', `http://127.0.0.1:${await ceiling.port}/`, bodies)
    await stop(ceiling.child)

    const naive = reference('naive', url.toString())
    const naiveRow = await http('naive: Express + express.json() + pg', `http://127.0.0.1:${await naive.port}/v3/${key}`, bodies)
    await stop(naive.child)

    const cached = ours()
    const cachedPort = await cached.port
    const oursRow = await http('ours: HTTP, cache on', `http://127.0.0.1:${cachedPort}/v3/${key}`, bodies)
    const wsRow = await ws('ours: WebSocket, cache on', `ws://127.0.0.1:${cachedPort}/ws/v3/${key}`, randomUncle)
    // Same headers on both keys, so only the key's checks differ; the runs alternate three times
    // and the medians are compared, which evens out load from other processes.
    const plainRuns: Row[] = []
    const restrictedRuns: Row[] = []
    for (let round = 1; round <= 3; round++) {
      const pid = cached.child.pid
      plainRuns.push(await http(`ours: HTTP, cache on, key without restrictions, browser headers (${round}/3)`, `http://127.0.0.1:${cachedPort}/v3/${key}`, bodies, browserHeaders, pid))
      restrictedRuns.push(
        await http(
          `ours: HTTP, cache on, key with 30 origins + 30 user agents + secret + network (${round}/3)`,
          `http://127.0.0.1:${cachedPort}/v3/${restricted.key}`,
          bodies,
          browserHeaders,
          pid,
        ),
      )
    }
    const median = (runs: Row[]) => [...runs].sort((a, b) => a.rate - b.rate)[1]!
    const plainRow = median(plainRuns)
    const restrictedRow = median(restrictedRuns)
    const medianCpu = (runs: Row[]) => [...runs].map((r) => r.cpuUsPerRequest ?? Number.NaN).sort((a, b) => a - b)[1]!
    const cpuRatio = medianCpu(plainRuns) / medianCpu(restrictedRuns)
    const oursNullRow = await http('ours: null answer (same request)', `http://127.0.0.1:${cachedPort}/v3/${key}`, [nullRequest])
    // Distinct unknown hashes: no two concurrent requests share a lookup, every one reaches Postgres.
    const unknownHashes = Array.from({ length: 5000 }, () => nullCall(`0x${randomBytes(32).toString('hex')}`))
    await http('ours: null answers, 5,000 random unknown hashes', `http://127.0.0.1:${cachedPort}/v3/${key}`, unknownHashes)
    await stop(cached.child)

    const metered = ours('--metrics-port', '0')
    const meteredPort = await metered.port
    const meteredRow = await http('ours: HTTP, cache on, metrics on (--metrics-port)', `http://127.0.0.1:${meteredPort}/v3/${key}`, bodies)
    await ws('ours: WebSocket, cache on, metrics on', `ws://127.0.0.1:${meteredPort}/ws/v3/${key}`, randomUncle)
    await stop(metered.child)

    const unlimited = ours('--rate-limits', 'off')
    const unlimitedRow = await http('ours: HTTP, cache on, --rate-limits off', `http://127.0.0.1:${await unlimited.port}/v3/${key}`, bodies)
    await stop(unlimited.child)

    const uncached = ours('--cache-entries', '0')
    const uncachedRow = await http('ours: HTTP, cache off', `http://127.0.0.1:${await uncached.port}/v3/${key}`, bodies)
    await stop(uncached.child)

    let clusterRow: Row | undefined
    if (workers > 1) {
      const clustered = ours('--workers', String(workers))
      const port = await clustered.port
      clusterRow = await http(`ours: HTTP, cache on, --workers ${workers}`, `http://127.0.0.1:${port}/v3/${key}`, bodies)
      await ws(`ours: WebSocket, cache on, --workers ${workers}`, `ws://127.0.0.1:${port}/ws/v3/${key}`, randomUncle)
      await http(`ours: null answer, --workers ${workers}`, `http://127.0.0.1:${port}/v3/${key}`, [nullRequest])
      await stop(clustered.child)
    }

    const ratio = (a: Row, b: Row | undefined) => (b ? `${(a.rate / b.rate).toFixed(2)}×` : 'n/a')
    const table = [
      '',
      '| run | rate | p50 ms | p99 ms |',
      '| --- | ---: | ---: | ---: |',
      ...rows.map((r) => `| ${r.name} | ${Math.round(r.rate)} ${r.unit}${r.bad ? ` (${r.bad} failed)` : ''}${r.cpuUsPerRequest === undefined ? '' : `, ${r.cpuUsPerRequest.toFixed(1)} µs CPU/req`} | ${r.p50} | ${r.p99} |`),
      '',
      `ours (cache on) / naive:   ${ratio(oursRow, naiveRow)}   (target ≥ 3×)`,
      `ours (cache on) / ceiling: ${ratio(oursRow, ceilingRow)}   (target ≥ 0.40×)`,
      `ours (cache off) / naive:  ${ratio(uncachedRow, naiveRow)}`,
      `ours rate limits on / off: ${ratio(oursRow, unlimitedRow)}`,
      `ours metrics on / off:     ${ratio(meteredRow, oursRow)}   (target: within noise)`,
      `ours restricted key / unrestricted key (medians of 3 alternating runs): ${ratio(restrictedRow, plainRow)}   (target ≥ 0.95)`,
      `  by server CPU per request (unrestricted µs / restricted µs, steadier under load): ${Number.isNaN(cpuRatio) ? 'n/a' : `${cpuRatio.toFixed(2)}×`}   (target ≥ 0.95)`,
      `ours WebSocket msg/s / ours HTTP req/s: ${ratio(wsRow, oursRow)}`,
      ...(clusterRow ? [`ours --workers ${workers} / ours: ${ratio(clusterRow, oursRow)}`] : []),
      `ours null / anvil null:    ${ratio(oursNullRow, anvilRow)}`,
      '',
    ]
    process.stdout.write(table.join('\n'))
  } finally {
    await Promise.all(children.map(stop))
    await database.close()
    const admin = new pg.Client({ connectionString: base.toString() })
    await admin.connect()
    await admin.query(`drop database if exists ${pg.escapeIdentifier(url.pathname.slice(1))} with (force)`)
    await admin.end()
  }
}

await main()
