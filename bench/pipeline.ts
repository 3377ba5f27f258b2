import { execFileSync } from 'node:child_process'
import { Duplex } from 'node:stream'
import { parseArgs } from 'node:util'
import { createLogger } from '@uncle-rpc/config'
import { createRpcServer } from '@uncle-rpc/rpc'
import { createUncleFilter } from '../apps/rpc/src/reads/uncleFilter.js'
import { createBenchDatabase } from './rpcSetup.js'

// npm run bench:pipeline -- [--requests 200000] [--rounds 5] [--baseline DIR]
// Our JavaScript per HTTP request, without the kernel: the RPC server (fast path, keys, limits,
// usage, cache, null filter) in this process, fed keep-alive requests through a socket that is a
// plain Duplex counting the bytes written (no system calls). Each row sends the next request once
// the last answer is written, like one wrk connection. The figure is wall time per request on an
// idle core: stable to ~3% between runs, where a whole bench:rpc row moves ±10%, so changes of a
// few per cent show here first. With --baseline DIR (another checkout with its node_modules; copy
// this file into its bench/ when it predates it) the script runs there too, alternating three
// times, and prints this / baseline per row.

const { values: flags } = parseArgs({
  options: {
    requests: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '5' },
    baseline: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
})
const requests = Number(flags.requests)
const rounds = Number(flags.rounds)

/** A socket the fast path can own: reads come from push(), writes are counted and dropped. */
class CountingSocket extends Duplex {
  writes = 0
  remoteAddress = '127.0.0.1'
  remotePort = 40000
  localPort = 8545
  override _read(): void {}
  override _write(_chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.writes++
    done()
  }
  setNoDelay(): this {
    return this
  }
  setKeepAlive(): this {
    return this
  }
  setTimeout(): this {
    return this
  }
}

type Result = Record<string, number>

async function measure(): Promise<Result> {
  const bench = await createBenchDatabase()
  const logger = createLogger({ level: 'silent', name: 'bench-pipeline' })
  const uncleFilter = createUncleFilter({ url: bench.url, networks: ['mainnet'], logger })
  const rpc = createRpcServer({ db: bench.database.db, logger, uncleFilter }, { networks: [{ name: 'mainnet', confirmations: 0, chainId: 1 }] })
  await rpc.listen(0, '127.0.0.1')
  const results: Result = {}
  try {
    const request = (body: string) =>
      Buffer.from(`POST /v3/${bench.key} HTTP/1.1\r\nHost: 127.0.0.1:8545\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
    const unknown = (i: number) => `0x${(BigInt(i + 1) * 0x9e3779b97f4a7c15n).toString(16).padStart(64, '7').slice(-64)}`
    const rows: [string, Buffer[]][] = [
      ['one known uncle, cached', [request(bench.call(0, bench.uncles[0]!.blockHash, bench.uncles[0]!.index))]],
      ['random known uncles (1,410), cached', bench.uncles.map((u, i) => request(bench.call(i, u.blockHash, u.index)))],
      ['one unknown hash, null', [request(bench.call(0, unknown(0), '0x0'))]],
      ['5,000 random unknown hashes, null', Array.from({ length: 5000 }, (_, i) => request(bench.call(i, unknown(i), '0x0')))],
    ]
    const socket = new CountingSocket()
    rpc.server.emit('connection', socket)
    // Note: every known answer is read once first, so the rows measure the cached path.
    for (const body of rows[1]![1]) await answered(socket, body)
    // Note: while connections arrive (the last 1-2 s) answers wait for the turn's end (--requests-per-turn); measured after.
    await new Promise((done) => setTimeout(done, 2500))
    const run = (bodies: Buffer[]) => {
      const started = process.hrtime.bigint()
      for (let i = 0; i < requests; i++) socket.push(bodies[i % bodies.length])
      return Number(process.hrtime.bigint() - started) / requests
    }
    // Note: every row once unmeasured first, so the code is optimized for all of them alike.
    for (const [, bodies] of rows) run(bodies)
    for (const [name, bodies] of rows) {
      const before = socket.writes
      const times = Array.from({ length: rounds }, () => run(bodies))
      // Note: every request answered as it was read (a wait for a turn or the database would make this a different measurement).
      if (socket.writes - before !== rounds * requests) throw new Error(`${name}: ${socket.writes - before} answers written at once of ${rounds * requests}`)
      results[name] = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!
    }
  } finally {
    await rpc.close()
    await bench.drop()
  }
  return results
}

/** Resolves once `socket` has written an answer (after pushing `body`, when given); rejects after 10 s without one. */
function answered(socket: CountingSocket, body?: Buffer): Promise<void> {
  const before = socket.writes
  if (body !== undefined) socket.push(body)
  const deadline = Date.now() + 10_000
  return new Promise((done, fail) => {
    const check = () => {
      if (socket.writes > before) done()
      else if (Date.now() > deadline) fail(new Error('no answer within 10 s (is the database answering?)'))
      else setImmediate(check)
    }
    check()
  })
}

if (flags.json) {
  process.stdout.write(`${JSON.stringify(await measure())}\n`)
  process.exit(0)
}

const runs: { label: string; dir: string }[] = [{ label: 'this', dir: process.cwd() }]
if (flags.baseline !== undefined) runs.push({ label: 'baseline', dir: flags.baseline })
const measured: Record<string, Result[]> = {}
for (let round = 0; round < (flags.baseline === undefined ? 1 : 3); round++)
  for (const run of round % 2 === 0 ? runs : [...runs].reverse()) {
    // Note: each measurement in a process of its own, pinned to one core, from its own checkout.
    const out = execFileSync('taskset', ['-c', '1', process.execPath, '--conditions=uncle-rpc-source', '--import', 'tsx', 'bench/pipeline.ts', '--json', '--requests', String(requests), '--rounds', String(rounds)], {
      cwd: run.dir,
      env: { ...process.env, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    })
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as Result
    ;(measured[run.label] ??= []).push(result)
    process.stderr.write(`${run.label}: ${Object.entries(result).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} µs`).join('; ')}\n`)
  }
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!
const lines = ['', '| row | µs per request (this) |' + (flags.baseline === undefined ? '' : ' baseline | this / baseline by time |'), '| --- | ---: |' + (flags.baseline === undefined ? '' : ' ---: | ---: |')]
for (const name of Object.keys(measured.this![0]!)) {
  const now = median(measured.this!.map((r) => r[name]!))
  if (flags.baseline === undefined) lines.push(`| ${name} | ${(now / 1000).toFixed(2)} |`)
  else {
    const before = median(measured.baseline!.map((r) => r[name]!))
    lines.push(`| ${name} | ${(now / 1000).toFixed(2)} | ${(before / 1000).toFixed(2)} | ${(before / now).toFixed(2)}× |`)
  }
}
process.stdout.write(`${lines.join('\n')}\n`)
