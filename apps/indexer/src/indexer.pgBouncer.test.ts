import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countBlocks, listIndexedRanges } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, type PgBouncer, requireTool, spawnCli, startPgBouncer } from '@uncle-rpc/testing'
import { sleep } from '@uncle-rpc/process'
import { afterAll, describe, expect, test } from 'vitest'
import { compareWithNode } from './_test/compareWithNode.js'

// The indexer with only DATABASE_URL pointing at a real PgBouncer 1.18 in transaction mode (with
// ignore_startup_parameters for what we send, as docs/postgres.md says): every write is a
// transaction of its own, so nothing it needs lives on a server connection between them.

const blocks = 3000

describe.skipIf(requireTool('pgbouncer', 'pgbouncer') === undefined)('the indexer through PgBouncer in transaction mode', () => {
  const processes: CliProcess[] = []
  let database: OpenTestDatabase | undefined
  let bouncer: PgBouncer | undefined

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()))
    await bouncer?.stop()
    await database?.close()
  })

  test('behavior: a synthetic chain is indexed exactly: every block, one range, equal to the node', async () => {
    database = await openTestDatabase({ max: 2 })
    bouncer = await startPgBouncer({ poolMode: 'transaction', poolSize: 3, ignoreStartupParameters: ['statement_timeout', 'options'] })
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', String(blocks), '--seed', '41'])
    processes.push(node)
    const nodeUrl = (await node.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1] as string
    const config = join(tmpdir(), `uncle-rpc-pgbouncer-indexer-${process.pid}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'synthetic', chainId: 1337, rpcUrl: nodeUrl, fromBlock: 0, toBlock: blocks - 1, confirmations: 0 }] }))
    const indexer = spawnCli(['indexer', '--config', config, '--exit-when-done', '--range-size', '256'], {
      env: { DATABASE_URL: bouncer.url(new URL(database.url).pathname.slice(1)) },
    })
    processes.push(indexer)
    expect(await Promise.race([indexer.exited, sleep(90_000).then(() => 'still running')]), indexer.stderr().slice(-2000)).toBe(0)
    const { db } = database
    expect(await countBlocks(db, { network: 'synthetic' })).toBe(blocks)
    expect(await listIndexedRanges(db, { network: 'synthetic' })).toEqual([{ from: 0n, to: BigInt(blocks - 1) }])
    expect(await compareWithNode(db, { network: 'synthetic', url: nodeUrl, from: 0n, head: BigInt(blocks - 1) })).toEqual([])
  }, 150_000)
})
