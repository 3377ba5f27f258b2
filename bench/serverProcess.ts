import { type ChildProcess, spawn } from 'node:child_process'
import { parseArgs } from 'node:util'
import { benchRoot, type LoadOptions } from './rpcLoad.js'

// What the uncle-family benches share: their load flags, and server processes spawned (pinned to
// a core when asked), their port read from what they print, stopped with SIGTERM.

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

/** The load flags the uncle-family benches share (wrk and the cores), parsed from argv, with `connections` defaulting per bench. */
export function parseLoadFlags(defaultConnections: number): { load: LoadOptions; rounds: number; serverCore: string } {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: String(defaultConnections) },
      threads: { type: 'string', default: '2' },
      'server-core': { type: 'string', default: '1' },
      'load-core': { type: 'string', default: '0' },
    },
  })
  return {
    // Note: one run per row; the benches alternate rows over `rounds` and take the medians themselves.
    load: { duration: Number(values.duration), warmup: Number(values.warmup), connections: Number(values.connections), threads: Number(values.threads), loadCore: values['load-core'], rounds: 1 },
    rounds: Number(values.rounds),
    serverCore: values['server-core'],
  }
}
