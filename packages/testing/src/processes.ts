import { type ChildProcess, spawn } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

// Integration tests run the real `uncle-rpc` command line as child processes.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

/** The repository root (for cwd and paths in tests). */
export const repositoryRoot = repoRoot

/** Path of the `uncle-rpc` executable script. */
export const cliBin = join(repoRoot, 'apps/cli/bin/uncle-rpc.js')

export type CliProcess = {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** Resolves with the first match of `pattern` in stdout (or stderr), or rejects on exit/timeout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>
  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>
}

/** Starts `uncle-rpc <args>` as a child process (`bin`: another checkout's CLI script, for benchmarks of older code). */
export function spawnCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; bin?: string } = {}): CliProcess {
  const child = spawn(process.execPath, [options.bin ?? cliBin, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  const listeners = new Set<() => void>()
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString()
    for (const l of listeners) l()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString()
    for (const l of listeners) l()
  })
  const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')))
  return {
    child,
    exited,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolveMatch, reject) => {
        const check = () => {
          const match = pattern.exec(out) ?? pattern.exec(err)
          if (!match) return
          cleanup()
          resolveMatch(match)
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(new Error(`timed out waiting for ${pattern}\nstdout: ${out.slice(-2000)}\nstderr: ${err.slice(-4000)}`))
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          listeners.delete(check)
        }
        listeners.add(check)
        void exited.then((code) => {
          if (!listeners.has(check)) return
          cleanup()
          reject(
            new Error(`process exited (${code}) before ${pattern}\nstdout: ${out.slice(-2000)}\nstderr: ${err.slice(-4000)}`),
          )
        })
        check()
      })
    },
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Runs `uncle-rpc <args>` to completion. */
export async function runCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const p = spawnCli(args, options)
  const code = await p.exited
  return { code, stdout: p.stdout(), stderr: p.stderr() }
}
