import { type ChildProcess, spawn } from 'node:child_process'
import { freePort } from '@uncle-rpc/testing'

// Test-only: a private redis-server (no persistence) a test may stop and start again on the same
// port, so an outage never touches the shared Redis.

export type RedisServer = { url: string; port: number; stop(): Promise<void>; start(): Promise<void> }

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
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
    stop: () =>
      new Promise<void>((resolve) => {
        if (!child || child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      }),
  }
}
