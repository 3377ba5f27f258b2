import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createDb } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { childrenOf, findPgBouncer, type PgBouncer, type PostgresServer, startPgBouncer, startPostgresServer } from '@uncle-rpc/testing'
import pg from 'pg'
import { derivedUncles, seedMainnetUncles } from '@uncle-rpc/db/testing'
import { openLoop, quantile } from './openLoop.js'
import { startBenchRpc, stopChild } from './benchRpc.js'
import { benchRoot, cpuMicros } from './rpcLoad.js'

// npm run bench:pgbouncer -- [--rate 300] [--duration 60] [--modes transaction,session,direct] [--root <checkout>] [--rpc-flags='--db-deadline-ms 1000']
// The rpc behind PgBouncer 1.18 (Debian's) as operators deploy it, on a private Postgres: per mode
// (transaction, session, or no pooler), with only DATABASE_URL pointing at it and
// ignore_startup_parameters = statement_timeout,options:
//   1. `uncle-rpc migrate` through it twice, the second while another client holds a transaction
//      (killed after 30 s: a hang);
//   2. one `uncle-rpc rpc` process, --cache-entries 0, the mainnet uncles of blocks 0..4000
//      indexed; an open loop of --rate requests/s for --duration s: a third known uncles, a third
//      unknown hashes, a third past-the-end indexes of known blocks, and one in six of the unknown
//      ones asking an uncle of 4001..8191, which is indexed (rows and notification, as the
//      indexer writes) a third of the way in. Every answer is checked: a known uncle must be it,
//      the rest null, a later uncle must be it from 2 s after its block was indexed.
// Prints per mode: migrate's outcome, answered, failed (by reason), p50/p99, Postgres CPU per request.
// --root runs another checkout's CLI (e.g. the code before, for before figures).

const { values: flags } = parseArgs({
  options: {
    rate: { type: 'string', default: '300' },
    duration: { type: 'string', default: '60' },
    modes: { type: 'string', default: 'transaction,session,direct' },
    root: { type: 'string', default: benchRoot },
    'rpc-flags': { type: 'string', default: '' },
  },
})
const rpcFlags = flags['rpc-flags'].split(' ').filter(Boolean)
const rate = Number(flags.rate)
const seconds = Number(flags.duration)
const modes = flags.modes.split(',') as ('transaction' | 'session' | 'direct')[]
const root = resolve(flags.root)
const seededTo = 4000
const log = (line: string) => process.stderr.write(`${line}\n`)

/** `uncle-rpc migrate` of `root` against `url`: its outcome in a few words and its time (killed after 30 s). */
function migrate(url: string): Promise<string> {
  const started = performance.now()
  const child = spawn(process.execPath, ['apps/cli/bin/uncle-rpc.js', 'migrate', '--database-url', url], { cwd: root, env: { ...process.env, DATABASE_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let err = ''
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()))
  const timer = setTimeout(() => void stopChild(child, 'SIGKILL'), 30_000)
  return new Promise((done) =>
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      const s = ((performance.now() - started) / 1000).toFixed(1)
      done(signal === 'SIGKILL' ? `hung (killed at ${s} s)` : code === 0 ? `ok in ${s} s` : `exit ${code} in ${s} s: ${err.split('\n')[0]?.slice(0, 120)}`)
    }),
  )
}

/** CPU time (µs) of the postmaster of `server` and every process it forked. */
function postgresMicros(server: PostgresServer): number {
  const pid = Number(readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
  return [pid, ...childrenOf(pid)].reduce((sum, p) => sum + (cpuMicros(p) ?? 0), 0)
}

type Row = { mode: string; migrate: string; sent: number; answered: number; failed: number; p50: number; p99: number; pgUs: number; reasons: string }

async function runMode(server: PostgresServer, mode: 'transaction' | 'session' | 'direct', config: string): Promise<Row> {
  const name = `uncle_rpc_bench_pgbouncer_${mode}`
  const admin = new pg.Client({ connectionString: server.url() })
  await admin.connect()
  await admin.query(`drop database if exists ${name} with (force)`)
  await admin.query(`create database ${name}`)
  await admin.end()
  const bouncer: PgBouncer | undefined =
    mode === 'direct' ? undefined : await startPgBouncer({ upstream: { port: server.port }, poolMode: mode, ignoreStartupParameters: ['statement_timeout', 'options'] })
  const url = bouncer?.url(name) ?? server.url(name)
  const database = createDb({ url: server.url(name), max: 2 })
  try {
    const first = await migrate(url)
    // Note: holds the server connection the first migrate ran on (PgBouncer lends the last used first).
    const holder = new pg.Client({ connectionString: url })
    await holder.connect()
    await holder.query('begin')
    await holder.query('select 1')
    const second = await migrate(url)
    await holder.query('rollback')
    await holder.end()
    // Note: the schema must be there for the load whatever migrate did through the pooler.
    if (!first.startsWith('ok')) await migrate(server.url(name))
    await seedMainnetUncles(database.db, 'mainnet', seededTo)
    const { key } = await createApiKey(database.db, { plan: 'custom', rpsLimit: 1_000_000, dailyLimit: 1_000_000_000, batchLimit: 1000, label: 'bench' })
    const all = derivedUncles()
    const known = all.filter((u) => u.blockNumber <= seededTo)
    const later = all.filter((u) => u.blockNumber > seededTo)
    const call = (n: number, hash: string, index: string) => `{"jsonrpc":"2.0","id":${n},"method":"eth_getUncleByBlockHashAndIndex","params":["${hash}","${index}"]}`
    const pick = <T>(xs: readonly T[], n: number) => xs[(n * 7919) % xs.length]!
    let indexedAt = Number.POSITIVE_INFINITY
    let loopStart = 0
    const body = (n: number) => {
      if (n % 3 === 0) return call(n, pick(known, n).blockHash, pick(known, n).index)
      if (n % 3 === 2) return call(n, pick(known, n).blockHash, '0x7')
      if (n % 6 === 1) return call(n, pick(later, n).blockHash, pick(later, n).index)
      return call(n, `0x${n.toString(16).padStart(64, 'e')}`, '0x0')
    }
    const check = (n: number, text: string): string | undefined => {
      if (text.includes('"error"')) return /"code":(-?\d+)/.exec(text)?.[0] ?? 'error'
      if (n % 3 === 0) return text.includes(`"hash":"${pick(known, n).result.hash as string}"`) ? undefined : 'known uncle not answered'
      if (n % 6 === 1) {
        const due = loopStart + (n * 1000) / rate
        if (text.includes(`"hash":"${pick(later, n).result.hash as string}"`)) return undefined
        return due >= indexedAt + 2000 ? 'null 2 s after its block was indexed' : undefined
      }
      return text.includes('"result":null') ? undefined : 'not null'
    }
    const rpc = await startBenchRpc({ root, config, databaseUrl: url, args: ['--cache-entries', '0', '--rate-limits', 'off', ...rpcFlags] })
    try {
      const cpuBefore = postgresMicros(server)
      loopStart = performance.now()
      const indexing = new Promise<void>((done) =>
        setTimeout(() => {
          void seedMainnetUncles(database.db, 'mainnet', 8191, seededTo + 1).then(() => {
            indexedAt = performance.now()
            done()
          })
        }, (seconds * 1000) / 3),
      )
      const result = await openLoop({ url: `http://127.0.0.1:${rpc.port}/v3/${key}`, rate, seconds, body, check })
      await indexing
      const pgUs = (postgresMicros(server) - cpuBefore) / result.sent
      const reasons = [...result.reasons].map(([reason, n]) => `${reason}: ${n}`).join(', ')
      const row = { mode, migrate: `${first}; ${second}`, sent: result.sent, answered: result.answered, failed: result.failed, p50: quantile(result.latencies, 0.5), p99: quantile(result.latencies, 0.99), pgUs, reasons }
      log(`${mode}: migrate ${row.migrate}; ${row.answered}/${row.sent} answered, p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms, postgres ${pgUs.toFixed(0)} µs/request${reasons ? ` (${reasons})` : ''}`)
      return row
    } finally {
      await stopChild(rpc.child)
    }
  } finally {
    await database.close()
    await bouncer?.stop()
  }
}

async function main(): Promise<void> {
  if (findPgBouncer() === undefined) throw new Error('pgbouncer not found: apt-get install -y pgbouncer')
  const server = await startPostgresServer()
  const dir = mkdtempSync(join(tmpdir(), 'uncle-rpc-bench-pgbouncer-'))
  const config = join(dir, 'networks.json')
  writeFileSync(config, JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1, rpcUrl: 'http://127.0.0.1:1', confirmations: 0 }] }))
  log(`rpc from ${root}${rpcFlags.length > 0 ? ` with ${rpcFlags.join(' ')}` : ''}; ${rate} req/s for ${seconds} s per mode, open loop, cache off; load average ${readFileSync('/proc/loadavg', 'utf8').trim()}`)
  const rows: Row[] = []
  try {
    for (const mode of modes) rows.push(await runMode(server, mode, config))
  } finally {
    await server.remove()
  }
  process.stdout.write(
    [
      '',
      `known / unknown / past-the-end calls, cache off${rpcFlags.length > 0 ? `, ${rpcFlags.join(' ')}` : ''}, ${rate} req/s open loop for ${seconds} s; uncles of 4001..8191 indexed at ${Math.round(seconds / 3)} s`,
      '| DATABASE_URL | migrate; again while a client holds a transaction | answered | failed | p50 ms | p99 ms | postgres µs/request |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map(
        (r) =>
          `| ${r.mode === 'direct' ? 'Postgres directly' : `PgBouncer, ${r.mode} mode`} | ${r.migrate} | ${r.answered} of ${r.sent} | ${r.failed}${r.reasons ? ` (${r.reasons})` : ''} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.pgUs.toFixed(0)} |`,
      ),
      `load average after: ${readFileSync('/proc/loadavg', 'utf8').trim()}`,
      '',
    ].join('\n'),
  )
}

await main()
