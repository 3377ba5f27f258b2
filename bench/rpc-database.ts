import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createDb } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import autocannon from 'autocannon'
import { sql } from 'drizzle-orm'

// npm run bench:rpc-database -- --database-url postgres://…/db --network big [--duration 10] [--sample 10000]
// The RPC on an existing, indexed database (the mainnet-size run of docs/performance.md): random known uncles
// (a random sample of the uncles table), cache on and off, one `uncle-rpc rpc` process, autocannon
// with 64 connections. Prints req/s, p50, p99 and the ratio cache off / cache on.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    network: { type: 'string', default: 'mainnet' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    sample: { type: 'string', default: '10000' },
  },
})
const databaseUrl = flags['database-url']
if (!databaseUrl) throw new Error('--database-url is required')
const network = flags.network
const log = (line: string) => process.stderr.write(`${line}\n`)

const database = createDb({ url: databaseUrl, max: 2 })
const sample = await database.db.execute<{ block_hash: string; index: number }>(
  sql`select '0x' || encode(block_hash, 'hex') as block_hash, index from uncles tablesample system (1)
      where network = ${network} limit ${Number(flags.sample)}`,
)
const bodies = sample.rows.map(
  (u, i) => `{"jsonrpc":"2.0","id":${i},"method":"eth_getUncleByBlockHashAndIndex","params":["${u.block_hash}","0x${u.index.toString(16)}"]}`,
)
const [{ n } = { n: 0 }] = (await database.db.execute<{ n: number }>(sql`select count(*)::int as n from uncles where network = ${network}`)).rows
const { key } = await createApiKey(database.db, { plan: 'custom', label: 'bench' })
await database.close()
log(`${network}: ${n} uncles in the database; ${bodies.length} sampled at random`)

const config = join(tmpdir(), `uncle-rpc-bench-database-${process.pid}.json`)
writeFileSync(config, JSON.stringify({ networks: [{ name: network, chainId: 1337, rpcUrl: 'http://127.0.0.1:9/', confirmations: 0 }] }))

function startRpc(cacheEntries: number): Promise<{ child: ChildProcess; port: number }> {
  const args = ['apps/cli/bin/uncle-rpc.js', 'rpc', '--config', config, '--port', '0', '--rate-limits', 'off', '--cache-entries', String(cacheEntries)]
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((ok, fail) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening on http:\/\/[^:]+:(\d+)/.exec(out)
      if (match) ok({ child, port: Number(match[1]) })
    })
    child.once('exit', (code) => fail(new Error(`rpc exited with ${code}: ${out}`)))
  })
}

type Row = { name: string; rate: number; p50: number; p99: number; bad: number }
async function run(name: string, cacheEntries: number): Promise<Row> {
  const { child, port } = await startRpc(cacheEntries)
  const pick = () => bodies[Math.floor(Math.random() * bodies.length)]!
  const options = {
    url: `http://127.0.0.1:${port}/v3/${key}`,
    connections: Number(flags.connections),
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: pick() }) }],
  }
  await autocannon({ ...options, duration: Number(flags.warmup) })
  const result = await autocannon({ ...options, duration: Number(flags.duration) })
  await new Promise((done) => {
    child.once('exit', done)
    child.kill('SIGTERM')
  })
  const row = { name, rate: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, bad: result.non2xx + result.errors + result.timeouts }
  log(`${name}: ${Math.round(row.rate)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms${row.bad ? `, ${row.bad} failed` : ''}`)
  return row
}

// Note: a cache as large as the sample, so "on" means every answer can come from memory after warmup.
const on = await run('random known uncles, cache on', bodies.length)
const off = await run('random known uncles, cache off', 0)
process.stdout.write(
  `${network} (${n} uncles), ${flags.connections} connections, ${flags.duration} s each\n` +
    `| what | req/s | p50 ms | p99 ms |\n| --- | ---: | ---: | ---: |\n` +
    [on, off].map((r) => `| ${r.name} | ${Math.round(r.rate)} | ${r.p50} | ${r.p99} |`).join('\n') +
    `\ncache off / cache on: ${(off.rate / on.rate).toFixed(2)}\n`,
)
