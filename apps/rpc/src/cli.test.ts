import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describeWithFixtures } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { mainnetBlocksFixture } from './_test/seed.js'
import { createTestEnv, post, type TestEnv } from './_test/server.js'

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../cli/bin/uncle-rpc.js')
const call = '{"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockHashAndIndex","params":["0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b","0x0"]}'

/** Starts `uncle-rpc rpc …` and resolves with the port from its listening line. */
function start(args: string[], databaseUrl: string): { child: ChildProcess; port: Promise<number>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [bin, 'rpc', ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  const port = new Promise<number>((resolvePort, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /rpc listening on http:\/\/127\.0\.0\.1:(\d+)\/v3\/<API_KEY>/.exec(out)
      if (match) resolvePort(Number(match[1]))
    })
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening: ${out}`)))
  })
  // Note: callers that expect an early exit never await the port.
  port.catch(() => undefined)
  const exit = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)))
  return { child, port, exit }
}

describeWithFixtures([mainnetBlocksFixture], 'uncle-rpc rpc', () => {
  let env: TestEnv
  let config: string

  beforeAll(async () => {
    env = await createTestEnv()
    config = join(mkdtempSync(join(tmpdir(), 'uncle-rpc-')), 'networks.json')
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1, rpcUrl: 'http://127.0.0.1:1', confirmations: 0 }] }))
  })

  afterAll(async () => {
    await env?.close()
  })

  test('default: one process and --workers 2 serve the same answer and stop cleanly on SIGTERM', async () => {
    const single = start(['--config', config, '--port', '0'], env.database.url)
    const clustered = start(['--config', config, '--port', '0', '--workers', '2'], env.database.url)
    const answers = await Promise.all(
      [single, clustered].map(async ({ port }) => {
        const base = `http://127.0.0.1:${await port}`
        const bodies = []
        for (let i = 0; i < 4; i++) bodies.push((await post(`${base}/v3/${env.key}`, call)).body)
        return bodies
      }),
    )
    expect(new Set(answers.flat()).size).toBe(1)
    expect(answers[0]?.[0]).toContain('"hash":"0x932bdf904546a2287a2c9b2ede37925f698a7657484b172d4e5184f80bdd464d"')
    single.child.kill('SIGTERM')
    clustered.child.kill('SIGTERM')
    expect(await single.exit).toBe(0)
    expect(await clustered.exit).toBe(0)
  })

  test('error: a port already taken (EADDRINUSE): exits 1 with the reason, one process and --workers 2', async () => {
    const taken = createServer()
    const port = await new Promise<number>((resolvePort) => taken.listen(0, '127.0.0.1', () => resolvePort((taken.address() as AddressInfo).port)))
    try {
      const runs = [['--port', String(port)], ['--port', String(port), '--workers', '2']].map((flags) => {
        const rpc = start(['--config', config, ...flags], env.database.url)
        let stderr = ''
        rpc.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
        // Note: a process that keeps running fails the test by its timeout, not by hanging the suite.
        const killer = setTimeout(() => rpc.child.kill('SIGKILL'), 90_000)
        return rpc.exit.then((code) => {
          clearTimeout(killer)
          return { code, stderr }
        })
      })
      const [single, clustered] = await Promise.all(runs)
      expect(single?.code).toBe(1)
      expect(single?.stderr).toContain(`rpc: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`)
      expect(clustered?.code).toBe(1)
      expect(clustered?.stderr).toContain(`rpc: cannot listen on 127.0.0.1:${port}`)
    } finally {
      taken.close()
    }
  }, 180_000)

  test('error: a multi-host DATABASE_URL (host1,host2): exits 1 naming the supported ways, the password not echoed', async () => {
    const rpc = start(['--config', config, '--port', '0'], 'postgres://app:s3cret@127.0.0.1:5432,127.0.0.1:5433/uncle_rpc?target_session_attrs=read-write')
    let stderr = ''
    rpc.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    expect(await rpc.exit).toBe(1)
    expect(stderr).toContain('DATABASE_URL: several hosts in one URL (host1,host2, as libpq reads it) are not supported')
    expect(stderr).toContain("a virtual IP, HAProxy checking Patroni's REST API, a managed service's endpoint, or PgBouncer in front of it")
    expect(stderr).not.toContain('s3cret')
  }, 60_000)

  test('error: bad flags exit 2', async () => {
    const { exit } = start(['--port', 'x'], env.database.url)
    expect(await exit).toBe(2)
  })
})
