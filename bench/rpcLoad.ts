import { execFile, execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Sample, sumSamples } from '@uncle-rpc/metrics'

// Load generation for bench/rpc.ts: wrk for HTTP, bench/wsLoad.ts for WebSocket, each pinned to
// the load core (`taskset -c <core>`) while the server under test runs on the other.

export const benchRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * One measured row: rate, latency (ms), failures, the server's CPU per request when known, and
 * Postgres's own CPU per request when asked for. A row of several rounds is its median round, with
 * every round's rate and CPU in `rounds` (the spread).
 */
export type Row = {
  name: string
  rate: number
  p50: number
  p99: number
  unit: string
  bad: number
  cpuUsPerRequest?: number
  databaseCpuUsPerRequest?: number
  rounds?: { rate: number; cpuUsPerRequest?: number | undefined }[]
  note?: string
}

export type LoadOptions = {
  duration: number
  warmup: number
  connections: number
  threads: number
  loadCore: string
  /** Measured runs per row after the warmup; the row is the run with the median rate (rates on a shared machine move ±15% between runs). */
  rounds: number
}

/** The run with the median rate of `runs` (the middle one; the lower middle of an even count), with every run's rate and CPU. */
function median(runs: Row[]): Row {
  const middle = [...runs].sort((a, b) => a.rate - b.rate)[Math.floor((runs.length - 1) / 2)]!
  return { ...middle, rounds: runs.map((r) => ({ rate: r.rate, cpuUsPerRequest: r.cpuUsPerRequest })) }
}

/** Exits with install instructions when wrk or taskset is missing. */
export function requireTools(): void {
  for (const [tool, hint] of [
    ['wrk', 'install it: `sudo apt-get install wrk` (Debian/Ubuntu), `brew install wrk` (macOS), or build https://github.com/wg/wrk'],
    ['taskset', 'install util-linux (`sudo apt-get install util-linux`); pinning needs Linux'],
  ] as const) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' })
    } catch {
      process.stderr.write(`bench:rpc needs ${tool}, which is not on PATH: ${hint}\n`)
      process.exit(1)
    }
  }
}

/** CPU time (user + system, µs) a process has used so far, from /proc (Linux); undefined elsewhere. */
export function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return undefined
  // Note: fields after the command name (which may hold spaces) start after the last ')'; utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100
}

/** CPU time (µs) used so far by every process whose command name is `name` and by its children that ended (Postgres: `postgres`, its backends and workers); undefined without /proc. */
export function processesCpuMicros(name: string): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined
  let total = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // Note: the process ended meanwhile.
    }
    const close = stat.lastIndexOf(')')
    if (stat.slice(stat.indexOf('(') + 1, close) !== name) continue
    const fields = stat.slice(close + 2).split(' ')
    // Note: with cutime and cstime, the CPU of the backends that ended and were reaped (the postmaster's children), so the sum never falls.
    total += ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1_000_000) / 100
  }
  return total
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((done, fail) =>
    execFile(command, args, { cwd: benchRoot, maxBuffer: 1 << 20 }, (error, stdout, stderr) =>
      error ? fail(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stderr}`)) : done(stdout),
    ),
  )
}

type WrkSummary = { requests: number; durationUs: number; p50Us: number; p99Us: number; maxUs: number; status: number; connect: number; read: number; write: number; timeout: number }

function wrk(url: string, bodiesFile: string, headers: readonly string[], seconds: number, options: LoadOptions): Promise<WrkSummary> {
  const script = join(benchRoot, 'bench', 'wrk', 'bodies.lua')
  const args = ['-c', options.loadCore, 'wrk', `-t${options.threads}`, `-c${options.connections}`, `-d${seconds}s`, '-s', script, url, '--', bodiesFile, ...headers]
  return run('taskset', args).then((out) => {
    const line = out.split('\n').find((l) => l.startsWith('{"requests"'))
    if (line === undefined) throw new Error(`wrk printed no summary:\n${out}`)
    return JSON.parse(line) as WrkSummary
  })
}

/** wrk against `url` (a warmup run, then the measured one), bodies from `bodiesFile`; `serverPid` for CPU per request. */
export async function httpRow(
  name: string,
  url: string,
  bodiesFile: string,
  options: LoadOptions,
  extra: { headers?: readonly string[]; serverPid?: number | undefined; databaseCpu?: boolean } = {},
): Promise<Row> {
  const headers = extra.headers ?? []
  if (options.warmup > 0) await wrk(url, bodiesFile, headers, options.warmup, options)
  const runs: Row[] = []
  for (let round = 0; round < Math.max(1, options.rounds); round++) runs.push(await httpRun(name, url, bodiesFile, headers, options, extra.serverPid, extra.databaseCpu === true))
  return median(runs)
}

async function httpRun(name: string, url: string, bodiesFile: string, headers: readonly string[], options: LoadOptions, serverPid: number | undefined, databaseCpu: boolean): Promise<Row> {
  const extra = { serverPid }
  const cpuBefore = cpuMicros(extra.serverPid)
  const databaseBefore = databaseCpu ? processesCpuMicros('postgres') : undefined
  const s = await wrk(url, bodiesFile, headers, options.duration, options)
  const cpuAfter = cpuMicros(extra.serverPid)
  const databaseAfter = databaseCpu ? processesCpuMicros('postgres') : undefined
  const row: Row = {
    name,
    rate: s.requests / (s.durationUs / 1e6),
    p50: s.p50Us / 1000,
    p99: s.p99Us / 1000,
    unit: 'req/s',
    bad: s.status + s.connect + s.read + s.write + s.timeout,
  }
  // Note: the server's CPU time per request holds steady when other processes load the machine; throughput does not.
  if (cpuBefore !== undefined && cpuAfter !== undefined && s.requests > 0) row.cpuUsPerRequest = (cpuAfter - cpuBefore) / s.requests
  if (databaseBefore !== undefined && databaseAfter !== undefined && s.requests > 0) row.databaseCpuUsPerRequest = (databaseAfter - databaseBefore) / s.requests
  return row
}

type WsSummary = { messages: number; seconds: number; p50: number; p99: number; max: number; failed: number; loadCpu: number }

/** bench/wsLoad.ts pinned to the load core: `connections` sockets with `depth` messages in flight each. */
export async function wsRow(name: string, url: string, bodiesFile: string, options: LoadOptions, depth: number, connections: number, serverPid?: number): Promise<Row> {
  const runs: Row[] = []
  for (let round = 0; round < Math.max(1, options.rounds); round++) runs.push(await wsRun(name, url, bodiesFile, options, depth, connections, serverPid))
  return median(runs)
}

async function wsRun(name: string, url: string, bodiesFile: string, options: LoadOptions, depth: number, connections: number, serverPid?: number): Promise<Row> {
  const cpuBefore = cpuMicros(serverPid)
  const args = ['-c', options.loadCore, process.execPath, '--import', 'tsx', 'bench/wsLoad.ts', url, bodiesFile, String(connections), String(depth), String(options.warmup), String(options.duration)]
  const out = await run('taskset', args)
  const cpuAfter = cpuMicros(serverPid)
  const s = JSON.parse(out.trim().split('\n').at(-1)!) as WsSummary
  const row: Row = {
    name,
    rate: s.messages / s.seconds,
    p50: s.p50,
    p99: s.p99,
    unit: 'msg/s',
    bad: s.failed,
    note: `load generator CPU ${Math.round(s.loadCpu * 100)}% of its core`,
  }
  // Note: the server's CPU covers the warmup too, so it is per message of both windows (rate × (warmup + duration)).
  if (cpuBefore !== undefined && cpuAfter !== undefined && s.messages > 0)
    row.cpuUsPerRequest = (cpuAfter - cpuBefore) / (row.rate * (options.warmup + options.duration))
  return row
}

/**
 * The bound (ms) of the histogram bucket holding the `q` quantile of what was observed between two
 * scrapes (`name` is the `_bucket` series, `where` its other labels); undefined when nothing was.
 * Note: a bucket bound, not an interpolation: "p99 ≤ 0.5 ms" reads as at most that.
 */
export function bucketQuantile(before: readonly Sample[], after: readonly Sample[], name: string, where: Readonly<Record<string, string>>, q: number): number | undefined {
  const bounds = [...new Set(after.filter((s) => s.name === name && s.labels.le !== undefined).map((s) => s.labels.le!))]
  const counts = bounds
    .map((le) => ({ le: le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), n: sumSamples(after, name, { ...where, le }) - sumSamples(before, name, { ...where, le }) }))
    .sort((a, b) => a.le - b.le)
  const total = counts.at(-1)?.n ?? 0
  if (total === 0) return undefined
  return counts.find((c) => c.n >= q * total)!.le * 1000
}

/** The least and the most of `values`, as `a–b` with `digits` decimals (one value alone). */
export function spread(values: readonly number[], digits = 0): string {
  const format = (v: number) => (digits === 0 ? Math.round(v).toLocaleString('en-US') : v.toFixed(digits))
  const low = Math.min(...values)
  const high = Math.max(...values)
  return low === high ? format(low) : `${format(low)}–${format(high)}`
}

/** The row as one markdown table line; the note carries Postgres's CPU and, for several rounds, their spread. */
export function formatRow(r: Row): string {
  const cpu = r.cpuUsPerRequest === undefined ? '' : `${r.cpuUsPerRequest.toFixed(1)}`
  const cpus = (r.rounds ?? []).flatMap((x) => (x.cpuUsPerRequest === undefined ? [] : [x.cpuUsPerRequest]))
  const notes = [
    r.note,
    r.databaseCpuUsPerRequest === undefined ? undefined : `Postgres ${r.databaseCpuUsPerRequest.toFixed(1)} µs CPU/req`,
    r.rounds === undefined || r.rounds.length < 2 ? undefined : `rounds ${spread(r.rounds.map((x) => x.rate))} ${r.unit}${cpus.length > 1 ? `, ${spread(cpus, 1)} µs` : ''}`,
  ]
  return `| ${r.name} | ${Math.round(r.rate).toLocaleString('en-US')} ${r.unit}${r.bad ? ` (${r.bad} failed)` : ''} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${cpu} | ${notes.filter(Boolean).join('; ')} |`
}
