import { type ChildProcess, spawn } from 'node:child_process'
import { freePort } from './postgresServer.js'

// Test-only: a private redis-server (no persistence) on a free port, which a test may freeze
// (SIGSTOP: connections stay open, nothing answers), thaw, stop and start again on the same port,
// so an outage never touches the shared Redis.

export type RedisServer = {
  url: string
  port: number
  /** Stops the server (SIGKILL: its data is gone, as after a crash) and waits for the exit. */
  stop(): Promise<void>
  /** Starts it again on the same port (empty). */
  start(): Promise<void>
  /** SIGSTOP: the server hangs with its connections open. */
  freeze(): void
  /** SIGCONT: a frozen server resumes (and runs what it was sent meanwhile). */
  thaw(): void
}

/** Starts a private redis-server on 127.0.0.1 and a free port; `args`: more redis-server options (`--maxmemory-policy`, `allkeys-lru`). */
export async function startRedisServer({ args = [] }: { args?: readonly string[] } = {}): Promise<RedisServer> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      child = started
      let out = ''
      started.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('Ready to accept connections')) resolve()
      })
      started.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`)))
    })
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    freeze: () => void (running() && child?.kill('SIGSTOP')),
    thaw: () => void (running() && child?.kill('SIGCONT')),
    stop: () =>
      new Promise<void>((resolve) => {
        if (!running()) return resolve()
        child?.once('exit', () => resolve())
        child?.kill('SIGKILL')
      }),
  }
}
