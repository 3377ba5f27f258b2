import { spawn } from 'node:child_process'
import { hashHeader, headerFromRpc } from '@uncle-rpc/chain'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { repositoryRoot } from '@uncle-rpc/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

// The newcomer's first command, run as they would: `npm start`, then the printed curl.

describe('npm start', () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await createTestDatabase({ create: false })
  })
  afterAll(async () => {
    await database.drop()
  })

  test('default: starts everything, prints a curl whose answer is a real uncle, stops cleanly on SIGINT', async () => {
    const child = spawn('npm', ['start', '--', '--port', '0', '--node-port', '0'], {
      cwd: repositoryRoot,
      env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so SIGINT reaches npm and everything below it, as Ctrl-C does.
      detached: true,
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString()
    })
    const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')))
    try {
      const deadline = Date.now() + 90_000
      while (!/curl -s .*$/m.test(out) && Date.now() < deadline && child.exitCode === null)
        await new Promise((resolve) => setTimeout(resolve, 200))
      const curl = /curl -s -X POST -H 'Content-Type: application\/json' --data '(.*)' (http:\/\/\S+)$/m.exec(out)
      expect(curl, `stdout: ${out}\nstderr: ${err}`).not.toBeNull()
      expect(out).toMatch(/^ {2}WebSocket {2}ws:\/\/127\.0\.0\.1:\d+\/ws\/v3\/\S+$/m)
      const [, body = '', url = ''] = curl as RegExpExecArray
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      expect(response.status).toBe(200)
      const answer = (await response.json()) as { id: number; result: Record<string, unknown> | null }
      expect(answer.id).toBe(1)
      const uncle = headerFromRpc(answer.result)
      expect(hashHeader(uncle)).toBe(uncle.hash)
      expect(answer.result?.totalDifficulty).toBeNull()
    } finally {
      process.kill(-(child.pid as number), 'SIGINT')
    }
    // npm itself may die of the SIGINT; what matters is that everything below it stopped.
    expect([0, 'SIGINT']).toContain(await exited)
    expect(err).not.toMatch(/exited \(.*\); stopping everything/)
    const url = /(http:\/\/127\.0\.0\.1:\d+)\/v3\//.exec(out)?.[1]
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    await expect(fetch(`${url}/health`)).rejects.toThrow()
  }, 180_000)
})
