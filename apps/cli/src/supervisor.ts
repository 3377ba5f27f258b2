import { type ChildProcess, spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BaseError } from '@uncle-rpc/errors'

/** A child process of `uncle-rpc start` stopped while it was being waited for. */
export class ChildExitedError extends BaseError {
  constructor(message: string) {
    super(message, { name: 'ChildExitedError' })
  }
}

const bin = join(dirname(fileURLToPath(import.meta.url)), '../bin/uncle-rpc.js')

export type Child = {
  name: string
  process: ChildProcess
  /** Resolves with the first stdout line matching `pattern` (rejects if the child exits first). */
  waitForLine(pattern: RegExp): Promise<RegExpExecArray>
  exited: Promise<number | string>
}

/**
 * Runs `uncle-rpc <args>` as a child: stderr (logs) passes through — or, with `onLogLine`, is read
 * line by line —, stdout is read for its startup lines. Used by `uncle-rpc start` to run the
 * parts of the system side by side.
 */
export function startChild(name: string, args: readonly string[], env: NodeJS.ProcessEnv, onLogLine?: (line: string) => void): Child {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', onLogLine === undefined ? 'inherit' : 'pipe'] })
  if (onLogLine !== undefined) {
    let partial = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) if (line !== '') onLogLine(line)
    })
  }
  let stdout = ''
  const waiters = new Set<() => void>()
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    for (const w of waiters) w()
  })
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')))
  return {
    name,
    process: child,
    exited,
    waitForLine(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout)
          if (!match) return
          waiters.delete(check)
          resolve(match)
        }
        waiters.add(check)
        void exited.then((code) => {
          if (waiters.delete(check)) reject(new ChildExitedError(`${name} exited (${code}) before it was ready`))
        })
        check()
      })
    },
  }
}

/** SIGTERM to every child still running; SIGKILL to those not gone after `graceMs`. */
export async function stopChildren(children: readonly Child[], graceMs = 15_000): Promise<void> {
  for (const c of children) if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill('SIGTERM')
  const timer = setTimeout(() => {
    for (const c of children) if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill('SIGKILL')
  }, graceMs)
  await Promise.all(children.map((c) => c.exited))
  clearTimeout(timer)
}
