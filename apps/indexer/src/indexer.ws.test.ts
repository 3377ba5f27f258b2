import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { latestIndexedBlock } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, createTcpProxy, spawnCli, type TcpProxy } from '@uncle-rpc/testing'
import { sleep } from '@uncle-rpc/process'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { compareWithNode, nodeHead } from './_test/compareWithNode.js'

// A ws:// node: the sample node's own WebSocket. The indexer polls only once a minute, so blocks
// above the range planner's line arrive because a newHeads notification woke the head follower,
// which then fetches by number from its last stored block.

// Concurrent: each test has its own node, database and network name, and mostly waits on blocks.
describe.concurrent('indexer on a ws:// node', () => {
  const processes: CliProcess[] = []
  const proxies: TcpProxy[] = []
  const databases: OpenTestDatabase[] = []

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')))
    await Promise.all(proxies.map((p) => p.close()))
    await Promise.all(databases.map((d) => d.close()))
  })

  /**
   * A live sample node (`nodeArgs` added), an indexer following it over ws:// (through a TCP proxy
   * when `proxy`), `during` run once the follower subscribed; then checks that the last block is
   * stored soon after production stops and the stored chain equals the node's.
   */
  async function follow(network: string, nodeArgs: string[], options: { proxy?: boolean; during?: (proxy: TcpProxy | undefined) => Promise<void> } = {}) {
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', '120', '--block-time', '200', '--stop-after', '50', ...nodeArgs])
    processes.push(node)
    const http = (await node.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1] as string
    const { port } = new URL(http)
    const proxy = options.proxy ? await createTcpProxy({ host: '127.0.0.1', port: Number(port) }) : undefined
    if (proxy) proxies.push(proxy)
    const wsUrl = `ws://127.0.0.1:${proxy?.port ?? port}`
    const database = await openTestDatabase({ max: 2 })
    databases.push(database)
    const config = join(tmpdir(), `uncle-rpc-ws-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: network, chainId: 1337, rpcUrl: wsUrl, fromBlock: 0, confirmations: 2 }] }))
    const indexer = spawnCli(['indexer', '--config', config, '--poll-interval-ms', '60000'], {
      env: { DATABASE_URL: database.url, LOG_LEVEL: 'info' },
    })
    processes.push(indexer)
    await indexer.waitFor(/subscribed to newHeads/, 30_000)
    await options.during?.(proxy)
    const head = BigInt((await node.waitFor(/live chain stopped at head (\d+)/, 30_000))[1] as string)
    const { db } = database
    // The last block is written soon after its notification, long before the next poll (60 s).
    await vi.waitFor(async () => expect((await latestIndexedBlock(db, { network }))?.number, indexer.stderr().slice(-3000)).toBe(head), {
      timeout: 10_000,
      interval: 100,
    })
    expect(await nodeHead(http)).toBe(head)
    // Range jobs fill the history below the follower's start meanwhile.
    await vi.waitFor(async () => expect(await compareWithNode(db, { network, url: http, from: 0n, head })).toEqual([]), {
      timeout: 20_000,
      interval: 250,
    })
    // The WebSocket is closed on stop: the process exits by itself.
    expect(await indexer.stop()).toBe(0)
    expect(indexer.stderr()).not.toMatch(/"level":50/)
    await node.stop()
    return indexer
  }

  test("default: follows the head through newHeads, with reorgs, and stores the node's chain; stops cleanly", async () => {
    await follow('wsnet', ['--seed', '41', '--reorg-rate', '0.2', '--reorg-depth', '2'])
  }, 60_000)

  test('behavior: the socket is cut mid-run (TCP proxy); the follower reconnects, resyncs and misses nothing', async () => {
    const indexer = await follow('wscut', ['--seed', '42', '--reorg-rate', '0.1', '--reorg-depth', '2'], {
      proxy: true,
      during: async (proxy) => {
        // Real delays: the cut falls mid-run and lasts long enough to miss heads.
        await sleep(1000)
        await proxy!.cut()
        await sleep(1500)
        await proxy!.restore()
      },
    })
    expect(indexer.stderr().match(/subscribed to newHeads/g)?.length).toBeGreaterThanOrEqual(2)
  }, 60_000)

  test('behavior: bursts of 5 blocks announced as one head are all stored', async () => {
    await follow('wsburst', ['--seed', '43', '--burst', '5', '--reorg-rate', '0.1', '--reorg-depth', '2'])
  }, 60_000)
})
