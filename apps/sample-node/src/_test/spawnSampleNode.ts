import { type ChildProcess, spawn } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

// Starts the REAL sample node (`uncle-rpc sample-node …` through the CLI entry point) for
// integration tests, and talks to it over HTTP with fetch.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..')
const bin = join(repoRoot, 'apps/cli/bin/uncle-rpc.js')

export type SpawnedNode = {
  url: string
  /** The whole listening line. */
  line: string
  stderr(): string
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>
}

/** Spawns `uncle-rpc sample-node <args>` and resolves once it prints its listening line. */
export function spawnSampleNode(args: readonly string[], timeoutMs = 30_000): Promise<SpawnedNode> {
  const child: ChildProcess = spawn(process.execPath, [bin, 'sample-node', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
  return new Promise((resolveNode, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`sample node did not start in ${timeoutMs} ms; stderr: ${stderr}`))
    }, timeoutMs)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`sample node exited with ${code} before listening; stderr: ${stderr}`))
    })
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const match = /^sample-node listening on (http:\/\/\S+).*$/m.exec(stdout)
      if (!match) return
      clearTimeout(timer)
      resolveNode({
        url: match[1] as string,
        line: match[0],
        stderr: () => stderr,
        stop: () => {
          child.kill('SIGTERM')
          return exited
        },
      })
    })
  })
}

export type HttpAnswer = { status: number; headers: Headers; text: string }

/** POSTs a JSON-RPC body (text as is, anything else JSON-encoded) and returns the raw answer. */
export async function post(url: string, body: unknown, contentType = 'application/json'): Promise<HttpAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

/** A JSON-RPC request object. */
export function call(id: number | string, method: string, params?: unknown[]): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }
}

/** Runs `task` over `items` with at most `limit` in flight. */
export async function inParallel<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await task(items[next++] as T)
  }
  await Promise.all(Array.from({ length: limit }, worker))
}
