import { execFile, execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Sample, sumSamples } from '@uncle-rpc/metrics'

// Load generation for bench/rpc.ts: wrk for HTTP, bench/wsLoad.ts for WebSocket, each pinned to
// the load core (`taskset -c <core>`) while the server under test runs on the other.

export const benchRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** One measured row: rate, latency (ms), failures, and the server's CPU per request when known. */
export type Row = { name: string; rate: number; p50: number; p99: number; unit: string; bad: number; cpuUsPerRequest?: number; note?: string }

export type LoadOptions = {
  duration: number
  warmup: number
  connections: number
  threads: number
  loadCore: string
  /** Measured runs per row after the warmup; the row is the run with the median rate (rates on a shared machine move ±15% between runs). */
  rounds: number
}

/** The run with the median rate of `runs` (the middle one; the lower middle of an even count). */
function median(runs: Row[]): Row {
  return [...runs].sort((a, b) => a.rate - b.rate)[Math.floor((runs.length - 1) / 2)]!
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
export async function httpRow(name: string, url: string, bodiesFile: string, options: LoadOptions, extra: { headers?: readonly string[]; serverPid?: number | undefined } = {}): Promise<Row> {
  const headers = extra.headers ?? []
  if (options.warmup > 0) await wrk(url, bodiesFile, headers, options.warmup, options)
  const runs: Row[] = []
  for (let round = 0; round < Math.max(1, options.rounds); round++) runs.push(await httpRun(name, url, bodiesFile, headers, options, extra.serverPid))
  return median(runs)
}

async function httpRun(name: string, url: string, bodiesFile: string, headers: readonly string[], options: LoadOptions, serverPid: number | undefined): Promise<Row> {
  const extra = { serverPid }
  const cpuBefore = cpuMicros(extra.serverPid)
  const s = await wrk(url, bodiesFile, headers, options.duration, options)
  const cpuAfter = cpuMicros(extra.serverPid)
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

/** The row as one markdown table line. */
export function formatRow(r: Row): string {
  const cpu = r.cpuUsPerRequest === undefined ? '' : `${r.cpuUsPerRequest.toFixed(1)}`
  return `| ${r.name} | ${Math.round(r.rate).toLocaleString('en-US')} ${r.unit}${r.bad ? ` (${r.bad} failed)` : ''} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${cpu} | ${r.note ?? ''} |`
}
