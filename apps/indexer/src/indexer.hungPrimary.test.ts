import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDb, migrateDatabase } from '@uncle-rpc/db'
import { latestIndexedBlock } from '@uncle-rpc/db/chain'
import { type CliProcess, createTcpProxy, type PostgresServer, spawnCli, startPostgresServer, startStreamingReplica, type TcpProxy } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test } from 'vitest'

// A hung primary, not a crashed one, under a live indexer: the primary is frozen with SIGSTOP
// (its connections stay open, nothing answers) and its streaming replica promoted; the address
// the indexer uses moves to the new primary without cutting a session (a DNS name or a proxy
// without shutdown-sessions), so only the indexer's own bounds free it from the frozen server.
// Its head follower must give up within its query timeout (docs/postgres.md#failover) and follow
// the head on the new primary; without that timeout it would wait on the frozen server for good
// (TCP keep-alive does not help: the frozen server's kernel still answers it). The flags shrink
// the bound (3 s) so the test is quick.

const network = 'hungprimary'
const queryTimeoutMs = 3000

describe('indexer head following through a hung primary and a failover', () => {
  const processes: CliProcess[] = []
  const servers: PostgresServer[] = []
  let proxy: TcpProxy | undefined

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')))
    await proxy?.close()
    for (const server of servers) {
      server.thaw()
      await server.remove()
    }
  })

  test('behavior: gives up on the frozen primary within its query timeout and writes the new head blocks on the new one', async () => {
    const primary = await startPostgresServer()
    servers.push(primary)
    await migrateDatabase({ url: primary.url('uncle_rpc') })
    const replica = await startStreamingReplica(primary)
    servers.push(replica)
    proxy = await createTcpProxy({ host: '127.0.0.1', port: primary.port })
    const proxied = `postgres://postgres@127.0.0.1:${proxy.port}/uncle_rpc`

    // A chain growing by a block every 300 ms; the backfill of its first 50 is over at once.
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', '50', '--seed', '5', '--block-time', '300'])
    processes.push(node)
    const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1] as string
    const config = join(tmpdir(), `uncle-rpc-hung-primary-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: network, chainId: 1337, rpcUrl: url, fromBlock: 0, confirmations: 0 }] }))
    const indexer = spawnCli(
      [
        'indexer',
        '--config',
        config,
        '--poll-interval-ms',
        '200',
        ...['--db-connect-timeout-ms', '1000', '--db-statement-timeout-ms', String(queryTimeoutMs - 1000), '--db-query-timeout-ms', String(queryTimeoutMs)],
      ],
      { env: { DATABASE_URL: proxied, LOG_LEVEL: 'info' } },
    )
    processes.push(indexer)
    await indexer.waitFor(/"msg":"following the head"/, 60_000)

    // Following the head past the backfill: the chain's first new blocks are written.
    const onPrimary = createDb({ url: primary.url('uncle_rpc'), max: 1 })
    try {
      while (((await latestIndexedBlock(onPrimary.db, { network }))?.number ?? -1n) < 55n) await new Promise((resolve) => setTimeout(resolve, 200))
    } finally {
      await onPrimary.close()
    }

    // New connections go to the replica at once (writes fail there until it is promoted): only the
    // connections already open to the frozen server can hold the indexer.
    primary.freeze()
    const frozenAt = Date.now()
    proxy.retarget({ host: '127.0.0.1', port: replica.port }, { keepOpen: true })
    await replica.promote()

    // The follower's own lines since the freeze (range jobs write new heights too, on fresh connections: not the signal).
    const followerLines = () =>
      indexer
        .stderr()
        .split('\n')
        .filter((line) => line.includes('"msg":"following the head'))
        .map((line) => JSON.parse(line) as { time: number; msg: string })
        .filter((line) => line.time >= frozenAt)
    // After a failure it starts again from the database, saying "following the head" once it reads it.
    const resumed = () => {
      const lines = followerLines()
      const failed = lines.findIndex((line) => line.msg === 'following the head failed; will retry')
      return failed === -1 ? undefined : lines.slice(failed).find((line) => line.msg === 'following the head')
    }
    while (resumed() === undefined && Date.now() - frozenAt < 60_000) await new Promise((resolve) => setTimeout(resolve, 200))
    expect(followerLines().some((line) => line.msg === 'following the head failed; will retry')).toBe(true)
    // It read the new primary within the bound: the query timeout, the follower's first retry (1 s),
    // and a margin for a loaded machine.
    expect(resumed()!.time - frozenAt).toBeLessThan(queryTimeoutMs + 1000 + 10_000)

    // …and writes the new head blocks there.
    const onReplica = createDb({ url: replica.url('uncle_rpc'), max: 1, timeouts: { queryTimeoutMs: 2000 } })
    try {
      const atResume = (await latestIndexedBlock(onReplica.db, { network }))?.number ?? -1n
      let latest = atResume
      while (latest < atResume + 3n && Date.now() - frozenAt < 90_000) {
        await new Promise((resolve) => setTimeout(resolve, 200))
        latest = (await latestIndexedBlock(onReplica.db, { network }))?.number ?? -1n
      }
      expect(latest).toBeGreaterThanOrEqual(atResume + 3n)
    } finally {
      await onReplica.close()
    }
  }, 120_000)
})
