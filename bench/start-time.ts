// Start time of the shipped command: `uncle-rpc rpc` from exec until its admin port's /ready
// answers 200 (Postgres migrated, seeded and reachable), and `uncle-rpc --help` from exec to
// exit. Each is run --rounds times, one at a time; prints min / median / max in milliseconds.
//
//   npx tsx bench/start-time.ts [--rounds 10] [--repo <checkout>] [--node <path>]
//   (--repo: another checkout's CLI, e.g. the code before; --node: another Node binary)

import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createDb, migrateDatabase } from '@uncle-rpc/db'
import { cliBin, repositoryRoot } from '@uncle-rpc/testing'
import pg from 'pg'
import { seedMainnetUncles } from '@uncle-rpc/db/testing'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '10' }, repo: { type: 'string' }, node: { type: 'string' } } })
const rounds = Number(values.rounds)
const node = values.node ?? process.execPath
const cwd = values.repo ?? repositoryRoot
const bin = values.repo ? join(values.repo, 'apps/cli/bin/uncle-rpc.js') : cliBin
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Milliseconds from spawning `uncle-rpc --help` to its exit. */
function helpOnce(): Promise<number> {
  const started = performance.now()
  const child = spawn(node, [bin, '--help'], { cwd, stdio: 'ignore' })
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`--help exited ${code}`)))),
  )
}

/** Milliseconds from spawning `uncle-rpc rpc` to the first 200 from its /ready. */
async function readyOnce(databaseUrl: string): Promise<number> {
  const started = performance.now()
  const child = spawn(node, [bin, 'rpc', '--port', '0', '--metrics-port', '0', '--rate-limits', 'off'], {
    cwd,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    let out = ''
    const admin = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const match = /rpc metrics on (http:\/\/\S+)/.exec(out)
        if (match) resolve(match[1]!.replace(/\/metrics$/, ''))
      })
      child.once('exit', (code) => reject(new Error(`rpc exited ${code} before its admin port: ${out}`)))
    })
    for (;;) {
      const status = await fetch(`${admin}/ready`).then(
        (res) => res.status,
        () => 0,
      )
      if (status === 200) return performance.now() - started
      if (performance.now() - started > 60_000) throw new Error(`/ready not 200 after 60 s (last ${status})`)
      await sleep(2)
    }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
}

const summary = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0)
  return `min ${at(0)}  median ${at(0.5)}  max ${at(1)} ms (${xs.length} runs)`
}

const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')
const name = `uncle_rpc_bench_start_${process.pid}`
const url = new URL(base)
url.pathname = `/${name}`
const database = { url: url.toString() }
try {
  await migrateDatabase({ url: database.url })
  // Note: /ready is 200 only once a network has indexed blocks.
  const seeded = createDb({ url: database.url, max: 2 })
  await seedMainnetUncles(seeded.db)
  await seeded.close()
  await helpOnce()
  await readyOnce(database.url)
  const help: number[] = []
  const ready: number[] = []
  for (let i = 0; i < rounds; i++) {
    help.push(await helpOnce())
    ready.push(await readyOnce(database.url))
  }
  const version = await new Promise<string>((resolve) => {
    const child = spawn(node, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.once('exit', () => resolve(out.trim()))
  })
  process.stdout.write(`node ${version}, ${bin}\n`)
  process.stdout.write(`uncle-rpc --help           ${summary(help)}\n`)
  process.stdout.write(`uncle-rpc rpc → /ready 200 ${summary(ready)}\n`)
} finally {
  const postgres = new pg.Client({ connectionString: base.toString() })
  await postgres.connect()
  await postgres.query(`drop database if exists ${name} with (force)`)
  await postgres.end()
}
