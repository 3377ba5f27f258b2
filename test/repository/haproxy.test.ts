import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, freePort, renderLoopbackConfig, repositoryRoot, requireTool, runCli, spawnCli } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test, vi } from 'vitest'
import WebSocket from 'ws'

// docker/haproxy/haproxy.cfg, checked by `haproxy -c`, then run for real: the same file with the
// Docker DNS discovery replaced by two `uncle-rpc rpc` processes on loopback. One of them is
// SIGTERMed under load: every request is answered, by the other once it is gone.

const run = promisify(execFile)
const configPath = join(repositoryRoot, 'docker/haproxy/haproxy.cfg')
const call = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"eth_getUncleByBlockHashAndIndex","params":["0x${'ab'.repeat(32)}","0x0"]}`

type Rpc = { process: CliProcess; port: number; adminPort: number }

const haproxy = requireTool('haproxy', 'haproxy')

describe.skipIf(haproxy === undefined)('docker/haproxy/haproxy.cfg', () => {
  const processes: CliProcess[] = []
  let proxy: ChildProcess | undefined
  let database: OpenTestDatabase | undefined

  afterAll(async () => {
    proxy?.kill('SIGKILL')
    await Promise.all(processes.map((p) => p.stop('SIGKILL')))
    await database?.close()
  })

  test('default: `haproxy -c` accepts the file', async () => {
    const { stdout } = await run(haproxy!, ['-c', '-f', configPath])
    expect(stdout).toContain('Configuration file is valid')
  })

  test('behavior: two rpc processes behind it, one SIGTERMed under load: every request answered, WebSockets too', async () => {
    database = await openTestDatabase({ max: 1 })
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', '40'])
    processes.push(node)
    const nodeUrl = (await node.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1]!
    const networks = join(tmpdir(), `uncle-rpc-haproxy-${process.pid}.json`)
    writeFileSync(networks, JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1337, rpcUrl: nodeUrl, toBlock: 39, confirmations: 0 }] }))
    const env = { DATABASE_URL: database.url }
    // Indexed blocks make the rpc processes ready.
    expect((await runCli(['indexer', '--config', networks, '--exit-when-done'], { env })).code).toBe(0)
    const key = await createApiKey(database.db, { plan: 'team' })

    const startRpc = async (): Promise<Rpc> => {
      const rpc = spawnCli(['rpc', '--config', networks, '--port', '0', '--metrics-port', '0', '--rate-limits', 'off'], { env })
      processes.push(rpc)
      const port = Number((await rpc.waitFor(/rpc listening on http:\/\/[^:]+:(\d+)\//, 60_000))[1])
      const adminPort = Number((await rpc.waitFor(/rpc metrics on http:\/\/[^:]+:(\d+)\//, 60_000))[1])
      return { process: rpc, port, adminPort }
    }
    const [a, b] = await Promise.all([startRpc(), startRpc()])
    // Note: the config checks GET /ready on the admin port; until the rpc serves it there, the
    // same readiness on the rpc port stands in.
    const adminReady = (await fetch(`http://127.0.0.1:${a!.adminPort}/ready`)).status !== 404
    const ports = { rpc: await freePort(), stats: await freePort() }
    const rendered = join(tmpdir(), `uncle-rpc-haproxy-${process.pid}.cfg`)
    writeFileSync(rendered, renderLoopbackConfig(readFileSync(configPath, 'utf8'), ports, [a!, b!].map((r) => ({ port: r.port, checkPort: adminReady ? r.adminPort : r.port }))))
    proxy = spawn(haproxy!, ['-db', '-f', rendered], { stdio: ['ignore', 'pipe', 'pipe'] })
    let proxyLog = ''
    proxy.stdout?.on('data', (chunk: Buffer) => (proxyLog += chunk.toString()))
    proxy.stderr?.on('data', (chunk: Buffer) => (proxyLog += chunk.toString()))

    /** Each server's status in the ready backend, from the stats page's CSV. */
    const statuses = async (): Promise<Record<string, string>> => {
      const csv = await (await fetch(`http://127.0.0.1:${ports.stats}/;csv`)).text()
      const rows = csv.split('\n').map((line) => line.split(','))
      return Object.fromEntries(rows.filter((r) => r[0] === 'rpc_ready' && r[1]?.startsWith('rpc')).map((r) => [r[1]!, r[17]!]))
    }
    /** Polls the stats page until the statuses are `want`; fails after 30 s. */
    const until = (want: Record<string, string>) =>
      vi.waitFor(async () => expect(await statuses().catch(() => ({})), proxyLog).toEqual(want), { timeout: 30_000, interval: 100 })
    await until({ rpc1: 'UP', rpc2: 'UP' })

    const url = `http://127.0.0.1:${ports.rpc}/v3/${key.key}`
    const answered = { ok: 0, failed: [] as string[] }
    let stop = false
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: call(w * 1_000_000 + i) })
          const body = await res.text()
          if (res.status === 200 && body.includes('"result":null')) answered.ok++
          else answered.failed.push(`${res.status} ${body.slice(0, 200)}`)
        } catch (error) {
          answered.failed.push(String((error as Error).cause ?? error))
        }
      }
    }
    const load = Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)))
    const served = async (rpc: Rpc) => {
      const text = await (await fetch(`http://127.0.0.1:${rpc.adminPort}/metrics`)).text()
      return [...text.matchAll(/^uncle_rpc_requests_total\{[^}]*outcome="null"[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0)
    }
    await vi.waitUntil(async () => (await served(a!)) >= 100 && (await served(b!)) >= 100, { timeout: 30_000, interval: 50 })

    const ws = new WebSocket(`ws://127.0.0.1:${ports.rpc}/ws/v3/${key.key}`)
    const wsAnswer = new Promise<string>((resolve, reject) => {
      ws.once('message', (data: Buffer) => resolve(data.toString()))
      ws.once('error', reject)
    })
    ws.once('open', () => ws.send(call(7)))
    expect(await wsAnswer).toContain('"result":null')
    ws.close()

    const before = answered.ok
    expect(await a!.process.stop('SIGTERM')).toBe(0)
    // The stopped one is taken out by its failing checks; traffic goes on meanwhile.
    await until({ rpc1: 'DOWN', rpc2: 'UP' })
    const afterDown = answered.ok
    await vi.waitUntil(() => answered.ok >= afterDown + 200, { timeout: 30_000, interval: 50 })
    stop = true
    await load
    expect(answered.failed.slice(0, 5)).toEqual([])
    expect(answered.ok).toBeGreaterThan(before + 200)
    expect(await b!.process.stop('SIGTERM')).toBe(0)
  }, 120_000)
})
