import { type ChildProcess, spawn } from 'node:child_process'

// A real `uncle-rpc rpc` process of a checkout, for benches that run it against a database they set up.

/**
 * Starts `uncle-rpc rpc --config <config> --port 0 <args>` from `root` (this or another checkout)
 * on `databaseUrl`, logging at warn to our stderr; resolves with the port once it listens.
 */
export function startBenchRpc({ root, config, databaseUrl, args }: { root: string; config: string; databaseUrl: string; args: readonly string[] }): Promise<{ child: ChildProcess; port: number }> {
  const argv = ['apps/cli/bin/uncle-rpc.js', 'rpc', '--config', config, '--port', '0', ...args]
  const child = spawn(process.execPath, argv, { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((ok, fail) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /rpc listening on http:\/\/[^:]+:(\d+)/.exec(out)
      if (match) ok({ child, port: Number(match[1]) })
    })
    child.once('exit', (code) => fail(new Error(`rpc exited with ${code}: ${out}`)))
  })
}

/** Sends `signal` (default SIGTERM) to a child that still runs and waits for its exit. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done()
    child.once('exit', () => done())
    child.kill(signal)
  })
}
