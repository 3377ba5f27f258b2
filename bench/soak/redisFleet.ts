import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, startSentinelGroup } from '@uncle-rpc/testing'

// The soak's Redis, behind the few operations its faults need: a Sentinel group (primary,
// replica, three sentinels) when redis-sentinel is installed, else a single server.

export type RedisFleet = {
  /** What runs, for the report (`single redis-server, AOF`). */
  kind: string
  /** REDIS_URL for every process of the soak. */
  url: string
  /** Process ids by name, for RSS. */
  pids(): Record<string, number>
  /** SIGSTOP of the primary for `ms`, then SIGCONT: connections stay open, nothing answers. */
  freeze(ms: number): Promise<void>
  /** SIGKILL of the primary; resolves when a primary answers again. */
  killPrimary(): Promise<void>
  /** Stops every process and removes their files. */
  stop(): Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * One private redis-server on a free port with its own directory and an append-only file
 * (fsync every second), as an operator runs a single Redis: a killed primary is restarted at once
 * (as systemd's Restart=always does) and comes back with what it had written up to a second before.
 */
export async function startSingleRedis(): Promise<RedisFleet> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'uncle-rpc-soak-redis-'))
  let child: ChildProcess | undefined
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--maxmemory-policy', 'noeviction']
      const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
      child = started
      let out = ''
      const onData = (chunk: Buffer) => {
        out = (out + chunk.toString()).slice(-4000)
        if (out.includes('Ready to accept connections')) {
          started.stdout?.off('data', onData)
          started.stdout?.resume()
          resolve()
        }
      }
      started.stdout?.on('data', onData)
      started.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`)))
    })
  const stop = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (!running()) return resolve()
      child?.once('exit', () => resolve())
      child?.kill('SIGCONT')
      child?.kill(signal)
    })
  await start()
  return {
    kind: 'single redis-server (append-only file), restarted at once when killed',
    url: `redis://127.0.0.1:${port}`,
    pids: () => (child?.pid === undefined || !running() ? {} : { redis: child.pid }),
    async freeze(ms) {
      child?.kill('SIGSTOP')
      await sleep(ms)
      child?.kill('SIGCONT')
    },
    async killPrimary() {
      await stop('SIGKILL')
      await start()
    },
    async stop() {
      await stop('SIGTERM')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * A primary, a replica and three sentinels (packages/testing's group) with a down-after of
 * `downAfterMs`: REDIS_URL is `redis+sentinel://…`. A killed primary is replaced by the promoted
 * replica and started again as its replica, so every kill finds a replica to promote; a freeze
 * longer than the down-after is a hung primary the sentinels replace the same way.
 */
export async function startSentinelRedis(tools: { server: string; sentinel: string }, downAfterMs = 5_000): Promise<RedisFleet> {
  const group = await startSentinelGroup(tools, { downAfterMs })
  return {
    kind: `Sentinel: primary, replica, 3 sentinels (down-after ${downAfterMs} ms); a killed server rejoins as a replica`,
    url: group.url,
    pids: () => group.pids(),
    freeze: (ms) => group.freezePrimary(ms),
    async killPrimary() {
      await group.killPrimary({ timeoutMs: 60_000 })
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        group.restartKilled(),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the killed Redis server was not in sync again within 60 s')), 60_000))),
      ]).finally(() => clearTimeout(timer))
    },
    stop: () => group.close(),
  }
}
