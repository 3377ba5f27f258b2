import { type ChildProcess, spawn } from 'node:child_process'
import { benchRoot } from './rpcLoad.js'

// Server processes of the uncle-family benches: spawned (pinned to a core when asked), their port
// read from what they print, stopped with SIGTERM.

/** Starts `command` pinned to `core` (all cores when undefined); `port` is the first group of the first stdout match of `pattern`. */
export function startServerProcess(core: string | undefined, command: string, args: string[], pattern: RegExp, env: NodeJS.ProcessEnv = {}) {
  const [file, argv] = core === undefined ? [command, args] : ['taskset', ['-c', core, command, ...args]]
  const child = spawn(file, argv, { cwd: benchRoot, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const port = new Promise<number>((resolveMatch, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = pattern.exec(out)
      if (match) resolveMatch(Number(match[1]))
    })
    child.once('exit', (code) => reject(new Error(`${child.spawnargs.join(' ')} exited with ${code} before printing ${pattern}: ${out}`)))
  })
  return { child, port }
}

/** SIGTERM, and wait for the exit. */
export function stopServerProcess(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done()
    child.once('exit', () => done())
    child.kill('SIGTERM')
  })
}
