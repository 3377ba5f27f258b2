import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { type CliProcess, spawnCli } from '@uncle-rpc/testing'

// Test-only: a real `uncle-rpc rpc` process, load against it, and what the kernel says about it.

export type RpcProcess = { cli: CliProcess; port: number; base: string; pid: number }

/** Starts `uncle-rpc rpc --port 0 <args>` on `databaseUrl` and waits for its listening line. */
export async function startRpcProcess(databaseUrl: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<RpcProcess> {
  const cli = spawnCli(['rpc', '--port', '0', ...args], { env: { DATABASE_URL: databaseUrl, ...env } })
  const match = await cli.waitFor(/rpc listening on http:\/\/127\.0\.0\.1:(\d+)\//, 30_000)
  const port = Number(match[1])
  return { cli, port, base: `http://127.0.0.1:${port}`, pid: cli.child.pid ?? 0 }
}

/** Resident set size of a process, in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return line ? Number(line[1]) / 1024 : 0
}

/** Runs `attack` while sampling `pid`'s RSS every 50 ms: its result and the peak growth over the RSS before it (MB). */
export async function withPeakRss<T>(pid: number, attack: () => Promise<T>): Promise<[T, number]> {
  const before = rssMb(pid)
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50)
  try {
    const result = await attack()
    peak = Math.max(peak, rssMb(pid))
    return [result, peak - before]
  } finally {
    clearInterval(sampler)
  }
}

/** The CPU time (user + system, ms) a process has used so far (Linux /proc, 10 ms ticks). */
export function cpuMs(pid: number): number {
  // Note: the fields after the command name (which may hold spaces) start after its ')'; utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

/** The server's sockets on local `port` in CLOSE-WAIT (the client sent FIN, the server has not closed), from /proc/net/tcp. */
export function closeWaitOn(port: number): number {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => {
      const fields = line.trim().split(/\s+/)
      return fields[1]?.endsWith(hexPort) === true && fields[3] === '08'
    }).length
}

/** Process ids of the node children of `pid` (the cluster workers of a primary). */
export function childPids(pid: number): number[] {
  let pids: number[]
  try {
    pids = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map(Number)
  } catch {
    return []
  }
  return pids.filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('uncle-rpc')
    } catch {
      return false
    }
  })
}

export type LoadResult = { answered: number; calls: number; failed: number; errors: Map<string, number>; statuses: Map<number, number> }

export type Load = {
  /** Stops sending; resolves once every loop has its last answer (or failure). */
  stop(): Promise<LoadResult>
  /** Counts so far. */
  now(): LoadResult
}

/**
 * `concurrency` loops, each POSTing `body` to `url` over its own keep-alive connection as soon as
 * the previous answer arrived. A 200 counts as answered (`calls` adds `callsPerBody`); anything else
 * is counted by status or error code.
 */
export function startLoad(url: string, body: string, { concurrency = 8, callsPerBody = 1 } = {}): Load {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const result: LoadResult = { answered: 0, calls: 0, failed: 0, errors: new Map(), statuses: new Map() }
  let running = true
  const once = () =>
    new Promise<void>((resolve) => {
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume()
        res.on('end', () => {
          result.statuses.set(res.statusCode ?? 0, (result.statuses.get(res.statusCode ?? 0) ?? 0) + 1)
          if (res.statusCode === 200) {
            result.answered++
            result.calls += callsPerBody
          } else result.failed++
          resolve()
        })
        res.on('error', () => resolve())
      })
      req.on('error', (error: NodeJS.ErrnoException) => {
        result.failed++
        const code = error.code ?? error.message
        result.errors.set(code, (result.errors.get(code) ?? 0) + 1)
        // Note: a refused connection fails at once; a pause keeps the loop from spinning.
        setTimeout(resolve, 20)
      })
      req.end(body)
    })
  const loops = Array.from({ length: concurrency }, async () => {
    while (running) await once()
  })
  return {
    now: () => result,
    async stop() {
      running = false
      await Promise.all(loops)
      agent.destroy()
      return result
    },
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
