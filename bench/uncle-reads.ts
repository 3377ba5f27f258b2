import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { rpcUncleJson } from '@uncle-rpc/chain'
import { createDb, useUnnamedStatements } from '@uncle-rpc/db'
import { getUncleAnswers, getUncles } from '@uncle-rpc/db/chain'
import { cpuMicros } from './rpcLoad.js'
import { createBenchDatabase } from './rpcSetup.js'

// npm run bench:uncle-reads -- [--seconds 3] [--rounds 3] [--batch 24] [--statements 10] [--unnamed]
// The cold path's read alone, in this process (pin it: `taskset -c 1 npm run bench:uncle-reads`):
// random known uncles, `--batch` per statement (what bench:rpc's cache-off row carries at 64
// connections), `--statements` in flight, each uncle made into its answer's text. Two forms,
// alternating `--rounds` times: the header's columns read and the text written here
// (getUncles + rpcUncleJson, the baseline), and the text written by Postgres (getUncleAnswers,
// what the rpc uses). Prints uncles/s, client CPU and Postgres CPU per uncle (all postgres
// processes, from /proc), and the ratios. --unnamed adds a third form: getUncleAnswers on a pool
// that sends its statements unnamed, as the rpc does behind PgBouncer in transaction mode (parsed
// and planned on every execution).

const { values: flags } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    batch: { type: 'string', default: '24' },
    statements: { type: 'string', default: '10' },
    unnamed: { type: 'boolean', default: false },
  },
})
const seconds = Number(flags.seconds)
const batch = Number(flags.batch)

/** CPU time (µs) of every postgres process so far (cpuMicros of each; 0 where /proc is not). */
function postgresMicros(): number {
  if (!existsSync('/proc')) return 0
  let sum = 0
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') sum += cpuMicros(Number(pid)) ?? 0
    } catch {
      // Note: a backend that ended between the listing and the read.
    }
  }
  return sum
}

const bench = await createBenchDatabase()
const { uncles } = bench
const db = bench.database.db
await bench.database.pool.query('select 1')
// Note: the bench database's pool has 2 connections; statements in flight beyond that wait for one, as in the rpc with a small pool.
const keys = () =>
  Array.from({ length: batch }, () => {
    const u = uncles[Math.floor(Math.random() * uncles.length)]!
    return { blockHash: u.blockHash as `0x${string}`, index: Number(u.index) }
  })
// Note: a second pool of 2, marked as a pooler's would be after its first lost statement.
const unnamedPool = createDb({ url: bench.url, max: 2 })
useUnnamedStatements(unnamedPool.pool, new Error('bench: unnamed statements'))
const unnamedForm = 'text written by Postgres, unnamed statements (PgBouncer in transaction mode)'
const forms: Record<string, () => Promise<void>> = {
  'columns, text written here (getUncles + rpcUncleJson)': async () => {
    for (const row of await getUncles(db, { network: 'mainnet', keys: keys() })) if (row !== null) rpcUncleJson(row, { totalDifficulty: 'null' }, row.size)
  },
  'text written by Postgres (getUncleAnswers)': async () => {
    await getUncleAnswers(db, { network: 'mainnet', keys: keys(), totalDifficulty: 'null' })
  },
}
if (flags.unnamed)
  forms[unnamedForm] = async () => {
    await getUncleAnswers(unnamedPool.db, { network: 'mainnet', keys: keys(), totalDifficulty: 'null' })
  }
type Figures = { rate: number; client: number; postgres: number }
const results = new Map<string, Figures[]>()
try {
  for (let round = 0; round <= Number(flags.rounds); round++)
    for (const [name, read] of round % 2 === 0 ? Object.entries(forms) : Object.entries(forms).reverse()) {
      let done = 0
      const end = Date.now() + seconds * 1000
      const cpu = process.cpuUsage()
      const pg = postgresMicros()
      await Promise.all(
        Array.from({ length: Number(flags.statements) }, async () => {
          while (Date.now() < end) {
            await read()
            done += batch
          }
        }),
      )
      const used = process.cpuUsage(cpu)
      const figures = { rate: done / seconds, client: (used.user + used.system) / done, postgres: (postgresMicros() - pg) / done }
      // Note: round 0 warms both forms up and is not counted.
      if (round > 0) results.set(name, [...(results.get(name) ?? []), figures])
      process.stderr.write(`${round === 0 ? 'warmup ' : ''}${name}: ${Math.round(figures.rate)} uncles/s, client ${figures.client.toFixed(1)} µs, postgres ${figures.postgres.toFixed(1)} µs per uncle\n`)
    }
  const median = (name: string, of: (f: Figures) => number) => results.get(name)!.map(of).sort((a, b) => a - b)[Math.floor((results.get(name)!.length - 1) / 2)]!
  const [base, ours] = Object.keys(forms) as [string, string]
  const lines = ['', '| form | uncles/s | client µs/uncle | postgres µs/uncle |', '| --- | ---: | ---: | ---: |']
  for (const name of Object.keys(forms)) lines.push(`| ${name} | ${Math.round(median(name, (f) => f.rate))} | ${median(name, (f) => f.client).toFixed(1)} | ${median(name, (f) => f.postgres).toFixed(1)} |`)
  lines.push(
    '',
    `text by Postgres / columns: ${(median(ours, (f) => f.rate) / median(base, (f) => f.rate)).toFixed(2)}× uncles/s; client CPU per uncle ${(median(ours, (f) => f.client) / median(base, (f) => f.client)).toFixed(2)}×; postgres CPU per uncle ${(median(ours, (f) => f.postgres) / median(base, (f) => f.postgres)).toFixed(2)}× (medians of ${flags.rounds})`,
    '',
  )
  if (flags.unnamed)
    lines.push(
      `unnamed / named statements: ${(median(unnamedForm, (f) => f.rate) / median(ours, (f) => f.rate)).toFixed(2)}× uncles/s; client CPU per uncle ${(median(unnamedForm, (f) => f.client) / median(ours, (f) => f.client)).toFixed(2)}×; postgres CPU per uncle ${(median(unnamedForm, (f) => f.postgres) / median(ours, (f) => f.postgres)).toFixed(2)}×`,
      '',
    )
  process.stdout.write(lines.join('\n'))
} finally {
  await unnamedPool.close()
  await bench.drop()
}
