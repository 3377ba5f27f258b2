import { type ChildProcess, spawn } from 'node:child_process'
import { createWriteStream, openSync, readFileSync, type WriteStream, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { childrenOf, findTool, freePort, renderLoopbackConfig, repositoryRoot } from '@uncle-rpc/testing'
import { type Child, startChild } from '../../apps/cli/src/supervisor.js'

// The soak's processes: `uncle-rpc` children (sample node, indexers, rpc processes) whose logs go
// to files, restarted after a fault and after an unexpected exit (which is counted), and HAProxy
// in front of the rpc processes with the repository's docker/haproxy/haproxy.cfg.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export type Role = {
  name: string
  child(): Child
  /** Exits no one asked for (a crash), with their codes. */
  unexpectedExits: string[]
  /** Starts the process and waits for its startup lines. */
  start(): Promise<void>
  /** Sends `signal` and waits for the exit (an exit asked for: not restarted). */
  stop(signal: NodeJS.Signals): Promise<number | string>
  /** Stops it for good. */
  retire(): Promise<void>
}

/** A log file per process, in `dir`. */
function logTo(dir: string, name: string): { write(line: string): void; stream: WriteStream } {
  const stream = createWriteStream(join(dir, `${name}.log`), { flags: 'a' })
  return { stream, write: (line) => stream.write(`${line}\n`) }
}

/**
 * `uncle-rpc <args()>` as a named process of the fleet: logs (stderr) to `<dir>/<name>.log`,
 * ready when every pattern matched its stdout; an exit no one asked for is recorded and the
 * process started again a second later.
 */
export function createRole(name: string, dir: string, args: () => string[], env: NodeJS.ProcessEnv, ready: readonly RegExp[], onLogLine?: (line: string) => void): Role {
  const log = logTo(dir, name)
  let child: Child | undefined
  let asked = false
  let retired = false
  const role: Role = {
    name,
    unexpectedExits: [],
    child: () => child!,
    async start() {
      asked = false
      const started = startChild(name, args(), env, (line) => {
        log.write(line)
        onLogLine?.(line)
      })
      child = started
      void started.exited.then(async (code) => {
        if (asked || retired || child !== started) return
        role.unexpectedExits.push(`${name} exited (${code})`)
        log.write(`soak: ${name} exited (${code}) unasked; starting it again`)
        await sleep(1000)
        if (!retired) await role.start().catch((error: unknown) => role.unexpectedExits.push(`${name} did not start again: ${(error as Error).message}`))
      })
      for (const pattern of ready) await started.waitForLine(pattern)
    },
    async stop(signal) {
      asked = true
      const c = child!
      if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill(signal)
      return c.exited
    },
    async retire() {
      retired = true
      if (child === undefined) return
      const timer = setTimeout(() => child?.process.kill('SIGKILL'), 15_000)
      await role.stop('SIGTERM')
      clearTimeout(timer)
      log.stream.end()
    },
  }
  return role
}

export type Proxy = {
  url: string
  pid(): number | undefined
  /** Each rpc server's status in the `rpc_ready` backend (UP, DOWN, …), from the stats page. */
  statuses(): Promise<Record<string, string>>
  stop(): void
}

/** HAProxy with docker/haproxy/haproxy.cfg on loopback in front of `servers`; undefined when haproxy is not installed. */
export async function startProxy(dir: string, servers: readonly { port: number; checkPort: number }[]): Promise<Proxy | undefined> {
  const haproxy = findTool('haproxy')
  if (haproxy === undefined) return undefined
  const ports = { rpc: await freePort(), stats: await freePort() }
  const config = join(dir, 'haproxy.cfg')
  writeFileSync(config, renderLoopbackConfig(readFileSync(join(repositoryRoot, 'docker/haproxy/haproxy.cfg'), 'utf8'), ports, servers))
  const log = openSync(join(dir, 'haproxy.log'), 'a')
  const child: ChildProcess = spawn(haproxy, ['-db', '-f', config], { stdio: ['ignore', log, log] })
  const statuses = async () => {
    const csv = await (await fetch(`http://127.0.0.1:${ports.stats}/;csv`, { signal: AbortSignal.timeout(2000) })).text()
    const rows = csv.split('\n').map((line) => line.split(','))
    return Object.fromEntries(rows.filter((r) => r[0] === 'rpc_ready' && r[1]?.startsWith('rpc')).map((r) => [r[1]!, r[17]!]))
  }
  return { url: `127.0.0.1:${ports.rpc}`, pid: () => child.pid, statuses, stop: () => void child.kill('SIGTERM') }
}

/** Free ports for an rpc process: traffic and admin (/ready, /metrics); fixed, so a restarted one is where HAProxy expects it. */
export async function rpcPorts(): Promise<{ port: number; checkPort: number }> {
  return { port: await freePort(), checkPort: await freePort() }
}

/** Resolves once `probe` is true (polled every 200 ms); false after `timeoutMs`. */
export async function until(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    if (await probe().catch(() => false)) return true
    await sleep(200)
  }
  return false
}

/** RSS (MB) of `pid` and, with `children`, of its children from /proc (an rpc with --workers: the primary and its workers); undefined when it is gone. */
export function rssMb(pid: number | undefined, { children = true } = {}): number | undefined {
  if (pid === undefined) return undefined
  const own = (p: number) => {
    try {
      const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))
      return line ? Number(line[1]) / 1024 : undefined
    } catch {
      return undefined
    }
  }
  const mb = own(pid)
  if (mb === undefined || !children) return mb
  return childrenOf(pid).reduce((sum, child) => sum + (own(child) ?? 0), mb)
}
