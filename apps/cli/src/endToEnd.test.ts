import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, describeWithFixtures, fixturePath, readFixtureJson, readFixtureJsonl, runCli, spawnCli } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import WebSocket from 'ws'

// The whole product on real mainnet history: the era1 sample node → `uncle-rpc indexer` →
// Postgres → `uncle-rpc rpc` → HTTP and WebSocket clients, every process real.

const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'
const derived = 'derived/geth_eth_getUncleByBlockHashAndIndex_mainnet_0-8191.jsonl'
const infura = 'recorded/infura-docs/eth_getUncleByBlockHashAndIndex.response.json'
type DerivedUncle = { blockHash: string; blockNumber: number; index: string; result: Record<string, unknown> }

/** The contract's answer: geth's (≥ v1.9.10) with `"totalDifficulty":null` after `timestamp`. */
function expectedBody(id: number, result: Record<string, unknown>): string {
  const withTd: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(result)) {
    withTd[key] = value
    if (key === 'timestamp') withTd.totalDifficulty = null
  }
  return `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(withTd)}}`
}

const request = (id: number, u: DerivedUncle) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_getUncleByBlockHashAndIndex', params: [u.blockHash, u.index] })

describeWithFixtures([era1, derived, infura], 'end to end: era1 node → indexer → Postgres → rpc', () => {
  let database: TestDatabase
  let node: CliProcess
  let rpc: CliProcess
  let base: string
  let key: string
  let uncles: DerivedUncle[]

  beforeAll(async () => {
    uncles = readFixtureJsonl<DerivedUncle>(derived)
    database = await createTestDatabase()
    const env = { DATABASE_URL: database.url }
    node = spawnCli(['sample-node', '--port', '0', '--chain', fixturePath(era1)])
    const nodeUrl = (await node.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1] as string
    const config = join(tmpdir(), `uncle-rpc-e2e-${process.pid}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1, rpcUrl: nodeUrl, toBlock: 8191, confirmations: 0 }] }))
    const indexed = await runCli(['indexer', '--config', config, '--exit-when-done'], { env })
    expect(indexed.code, indexed.stderr).toBe(0)
    // Note: core's 10 requests/s would refuse most of the 2,821 calls below; this key's own limit is far above them.
    const created = await runCli(['keys', 'create', '--plan', 'core', '--label', 'e2e', '--rps', '100000'], { env })
    expect(created.code, created.stderr).toBe(0)
    key = created.stdout.trim().split('\n').at(-1) as string
    rpc = spawnCli(['rpc', '--config', config, '--port', '0', '--db-deadline-ms', '5000'], { env })
    base = (await rpc.waitFor(/rpc listening on (http:\/\/\S+?)\/v3\//, 60_000))[1] as string
  }, 180_000)

  afterAll(async () => {
    await Promise.all([rpc?.stop(), node?.stop()])
    await database?.drop()
  })

  test('default: all 1,410 uncles over HTTP are byte-identical to geth with totalDifficulty null', async () => {
    expect(uncles).toHaveLength(1410)
    let next = 0
    const mismatches: string[] = []
    const worker = async () => {
      for (let i = next++; i < uncles.length; i = next++) {
        const u = uncles[i] as DerivedUncle
        const response = await fetch(`${base}/v3/${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request(i, u) })
        const body = await response.text()
        if (response.status !== 200 || body !== expectedBody(i, u.result)) mismatches.push(`${u.blockNumber}/${u.index}: ${body.slice(0, 200)}`)
      }
    }
    await Promise.all(Array.from({ length: 16 }, worker))
    expect(mismatches).toEqual([])
  })

  test('default: all 1,410 uncles over one WebSocket are byte-identical too', async () => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws/v3/${key}`)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const answers = new Map<number, string>()
    const done = new Promise<void>((resolve) =>
      ws.on('message', (data: Buffer) => {
        const text = data.toString()
        answers.set(Number(/"id":(\d+)/.exec(text)?.[1]), text)
        if (answers.size === uncles.length) resolve()
      }),
    )
    uncles.forEach((u, i) => ws.send(request(i, u)))
    await done
    ws.close()
    const mismatches = uncles.filter((u, i) => answers.get(i) !== expectedBody(i, u.result))
    expect(mismatches.map((u) => `${u.blockNumber}/${u.index}`)).toEqual([])
  })

  test('behavior: block 668 index 0 equals the documented Infura sample response', async () => {
    const sample = readFixtureJson<Record<string, unknown>>(infura)
    const response = await fetch(`${base}/v3/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getUncleByBlockHashAndIndex', params: ['0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b', '0x0'] }),
    })
    const answer = (await response.json()) as Record<string, unknown>
    expect(answer).toEqual(sample)
    expect(Object.keys(answer.result as object)).toEqual(Object.keys(sample.result as object))
  })
})
