import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDb, migrateDatabase } from '@uncle-rpc/db'
import { createApiKey, usageDaily } from '@uncle-rpc/db/accounts'
import { countBlocks } from '@uncle-rpc/db/chain'
import { sleep } from '@uncle-rpc/process'
import { type CliProcess, freePort, type PostgresServer, runCli, seededRandom, spawnCli, startPostgresServer, startStreamingReplica } from '@uncle-rpc/testing'
import { eq, sql } from 'drizzle-orm'
import pg from 'pg'
import { compareWithNode, nodeBlocks } from '../../../indexer/src/_test/compareWithNode.js'
import { jsonLines } from './logLines.js'
import { type OpenLoadResult, startOpenLoad } from './openLoad.js'

// Test-only (and bench/postgres-failover.ts): the Postgres primary SIGKILLed behind HAProxy while
// an indexer backfills and an rpc serves open-loop load. A private primary and its streaming
// replica, each with an HTTP check that answers as Patroni's `GET /primary` does (200 only while
// the server accepts writes), and HAProxy in front with the check of docs/postgres.md
// (`option httpchk`, `on-marked-down shutdown-sessions`): the switch is HAProxy's own, when the
// promoted replica's check turns 200. Every process reaches Postgres through HAProxy's one address.

export type PostgresFailoverOptions = {
  haproxy: string
  blocks: number
  /** Requests per second sent to the rpc (open loop): half known uncles, half unknown block hashes. */
  rate: number
  /** The node's added delay per HTTP request, `a` or `a-b` ms (so the backfill is under way at the kill). */
  nodeLatencyMs: string
  indexerArgs?: readonly string[]
  /** More rpc flags. */
  rpcArgs?: readonly string[]
  /** Kill the primary once this share of the blocks is indexed. */
  killAt: number
  seed: number
  /** Longest wait for the indexer to finish (ms). */
  timeoutMs: number
  log?: (line: string) => void
}

export type PostgresFailoverResult = {
  blocks: number
  seed: number
  killedAtBlock: number
  /** Times HAProxy took the primary out before the kill (a flapping check): 0 for a valid run. */
  primaryDownsBeforeKill: number
  /** From the SIGKILL: the replica promoted (`pg_ctl promote -w` returned), HAProxy sending connections to it (its check UP), the rpc's /ready 200 again. */
  promotedMs: number
  switchedMs: number
  readyMs: number
  /** The rpc ready again after the switch (the issue asks ≤ 2 s). */
  readyAfterSwitchMs: number
  load: OpenLoadResult
  /** Failed requests due before the kill, and due after the rpc was ready again (+ `graceMs`). */
  failedBeforeKill: number
  failedAfterReady: number
  /** The last failed request's due time, from the kill. */
  lastFailureMs: number | undefined
  /** usage_daily of the key against what the rpc answered (HTTP 200, JSON-RPC errors among them). */
  usage: { requests: number; errors: number }
  rpcErrorsAnswered: number
  indexerExit: number | string
  storedBlocks: number
  chainProblems: string[]
  status: { code: number | string; stdout: string }
  rpcWarnings: Record<string, number>
  rawLogLines: string[]
  indexerLogTail: string | undefined
}

/** What a failed request may lag behind readiness: answers already under way when /ready turned 200. */
export const graceMs = 500

/** An HTTP check answering as Patroni's REST API does on `/primary`: 200 while `server` accepts writes, 503 otherwise. */
async function primaryCheck(server: PostgresServer): Promise<{ port: number; close: () => Promise<void> }> {
  const http: Server = createServer((_req, res) => {
    const client = new pg.Client({ connectionString: server.url(), connectionTimeoutMillis: 1500, query_timeout: 1500 })
    client.on('error', () => undefined)
    client
      .connect()
      .then(() => client.query<{ r: boolean }>('select pg_is_in_recovery() as r'))
      .then(({ rows }) => rows[0]?.r === false)
      .catch(() => false)
      .then((primary) => {
        void client.end().catch(() => undefined)
        res.writeHead(primary ? 200 : 503).end(primary ? 'primary' : 'not the primary')
      })
  })
  const port = await freePort()
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve))
  return { port, close: () => new Promise((resolve) => http.close(() => resolve())) }
}

/**
 * HAProxy in front of the two servers, as docs/postgres.md configures it, checks every 500 ms.
 * Note: `timeout check` defaults to `inter`; a check slower than that on a loaded machine would
 * mark the live primary down and cut every session.
 */
function haproxyConfig(ports: { listen: number; stats: number }, servers: readonly { port: number; checkPort: number }[]): string {
  return [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode tcp',
    '  timeout connect 1s',
    '  timeout client 30m',
    '  timeout server 30m',
    'listen postgres_primary',
    `  bind 127.0.0.1:${ports.listen}`,
    '  option httpchk OPTIONS /primary',
    '  http-check expect status 200',
    '  timeout check 2s',
    '  default-server inter 500ms fall 3 rise 2 on-marked-down shutdown-sessions',
    ...servers.map((s, i) => `  server pg${i + 1} 127.0.0.1:${s.port} maxconn 200 check port ${s.checkPort}`),
    'listen stats',
    '  mode http',
    `  bind 127.0.0.1:${ports.stats}`,
    '  stats enable',
    '  stats uri /',
    '',
  ].join('\n')
}

/** Runs the scenario; every process it started is stopped and every server removed before it returns. */
export async function runPostgresFailover(options: PostgresFailoverOptions): Promise<PostgresFailoverResult> {
  const log = options.log ?? (() => undefined)
  const processes: CliProcess[] = []
  const closers: (() => Promise<unknown> | unknown)[] = []
  try {
    const primary = await startPostgresServer()
    closers.push(() => primary.remove())
    await migrateDatabase({ url: primary.url('uncle_rpc') })
    const replica = await startStreamingReplica(primary)
    closers.push(() => replica.remove())
    const checks = [await primaryCheck(primary), await primaryCheck(replica)]
    for (const c of checks) closers.push(c.close)
    const ports = { listen: await freePort(), stats: await freePort() }
    const config = join(tmpdir(), `uncle-rpc-pg-failover-${process.pid}-${randomBytes(4).toString('hex')}`)
    writeFileSync(`${config}.cfg`, haproxyConfig(ports, [{ port: primary.port, checkPort: checks[0]!.port }, { port: replica.port, checkPort: checks[1]!.port }]))
    let haproxyLog = ''
    const proxy: ChildProcess = spawn(options.haproxy, ['-db', '-f', `${config}.cfg`], { stdio: ['ignore', 'pipe', 'pipe'] })
    proxy.stdout?.on('data', (chunk: Buffer) => (haproxyLog = (haproxyLog + chunk.toString()).slice(-4000)))
    proxy.stderr?.on('data', (chunk: Buffer) => (haproxyLog = (haproxyLog + chunk.toString()).slice(-4000)))
    closers.push(() => proxy.kill('SIGKILL'))
    const servers = async (): Promise<string[][]> => {
      const csv = await (await fetch(`http://127.0.0.1:${ports.stats}/;csv`, { signal: AbortSignal.timeout(1000) })).text()
      return csv.split('\n').map((line) => line.split(',')).filter((r) => r[0] === 'postgres_primary' && r[1]?.startsWith('pg'))
    }
    /** Each server's status (UP, DOWN, …), from the stats page's CSV. */
    const statuses = async (): Promise<Record<string, string>> => Object.fromEntries((await servers()).map((r) => [r[1]!, r[17]!]))
    const waitFor = async (what: string, probe: () => Promise<boolean>, timeoutMs: number, intervalMs = 20) => {
      const deadline = performance.now() + timeoutMs
      while (!(await probe().catch(() => false))) {
        if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms (haproxy: ${haproxyLog.slice(-1000)})`)
        await sleep(intervalMs)
      }
    }
    await waitFor('haproxy sees pg1 UP, pg2 DOWN', async () => JSON.stringify(await statuses()) === '{"pg1":"UP","pg2":"DOWN"}', 30_000)

    const databaseUrl = `postgres://postgres@127.0.0.1:${ports.listen}/uncle_rpc`
    const { db, close } = createDb({ url: databaseUrl, max: 2, timeouts: { connectTimeoutMs: 2000, queryTimeoutMs: 10_000 } })
    closers.push(close)
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', String(options.blocks), '--seed', String(options.seed), '--fault-latency-ms', options.nodeLatencyMs])
    processes.push(node)
    const nodeUrl = (await node.waitFor(/listening on (http:\/\/\S+)/, 120_000))[1]!
    const network = 'failover'
    writeFileSync(`${config}.json`, JSON.stringify({ networks: [{ name: network, chainId: 1337, rpcUrl: nodeUrl, fromBlock: 0, toBlock: options.blocks - 1, confirmations: 0 }] }))
    const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }
    const { key, row } = await createApiKey(db, { plan: 'custom', label: 'pg-failover' })

    const indexer = spawnCli(['indexer', '--config', `${config}.json`, '--exit-when-done', ...(options.indexerArgs ?? [])], { env: { ...env, LOG_LEVEL: 'info' } })
    processes.push(indexer)
    // Note: the rpc is ready once a block is indexed; the known calls ask for uncles indexed before the load.
    const knownBelow = Math.floor((options.blocks * options.killAt) / 2)
    await waitFor('the indexer indexes the first blocks', async () => (await countBlocks(db, { network })) >= knownBelow, options.timeoutMs, 100)
    const known = (await nodeBlocks(nodeUrl, 0n, BigInt(knownBelow - 1))).flatMap((b) => b.uncles.map((uncle, index) => ({ block: b.hash, index, uncle })))
    if (known.length === 0) throw new Error('no uncles below the kill: a larger chain is needed')
    // Note: --cache-entries 0, so every call reads the database; no Redis (rate limits off).
    const rpc = spawnCli(['rpc', '--config', `${config}.json`, '--port', '0', '--metrics-port', '0', '--cache-entries', '0', '--rate-limits', 'off', ...(options.rpcArgs ?? [])], { env })
    processes.push(rpc)
    // Note: 180 s: on a 2-core machine at load average 20 the rpc alone took 20 s to start.
    const port = (await rpc.waitFor(/rpc listening on http:\/\/127\.0\.0\.1:(\d+)\//, 180_000))[1]
    const readyUrl = `${(await rpc.waitFor(/rpc metrics on (http:\/\/\S+?)\/metrics/, 180_000))[1]}/ready`
    const ready = async () => (await fetch(readyUrl, { signal: AbortSignal.timeout(1000) })).status === 200
    await waitFor('the rpc is ready', ready, 60_000)

    const next = seededRandom(options.seed)
    let id = 0
    const load = startOpenLoad(`http://127.0.0.1:${port}/v3/${key}`, options.rate, () => {
      id++
      if (next() < 0.5) {
        const k = known[Math.floor(next() * known.length)]!
        return {
          text: JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_getUncleByBlockHashAndIndex', params: [k.block, `0x${k.index.toString(16)}`] }),
          check: (answer) => (answer.includes(`"hash":"${k.uncle}"`) ? undefined : 'wrong answer (known uncle)'),
        }
      }
      return {
        text: JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_getUncleByBlockHashAndIndex', params: [`0x${randomBytes(32).toString('hex')}`, '0x0'] }),
        check: (answer) => (answer.includes('"result":null') ? undefined : 'wrong answer (unknown block)'),
      }
    })

    const wanted = Math.floor(options.blocks * options.killAt)
    let killedAtBlock: number
    // Note: a failed count (a connection cut) is a count of 0: polled again.
    while ((killedAtBlock = await countBlocks(db, { network }).catch(() => 0)) < wanted) {
      if (indexer.child.exitCode !== null) throw new Error(`the indexer exited before the kill:\n${indexer.stderr().slice(-3000)}`)
      await sleep(100)
    }
    // Note: CSV field 22 (chkdown) counts a server's UP → DOWN moves: a check that flapped would have cut every session before the kill.
    // (Asked until the stats page answers: on a loaded machine it can miss its 1 s timeout.)
    let stats: string[][] | undefined
    for (let attempt = 1; stats === undefined; attempt++) stats = await servers().catch((error: unknown) => (attempt < 10 ? undefined : Promise.reject(error)))
    const primaryDownsBeforeKill = Number(stats.find((r) => r[1] === 'pg1')?.[22])
    log(`killing the primary at ${killedAtBlock} of ${options.blocks} blocks`)
    const killedAt = performance.now()
    await primary.stop('SIGKILL')
    await replica.promote()
    const promotedMs = performance.now() - killedAt
    await waitFor('haproxy sends connections to the promoted replica', async () => (await statuses())['pg2'] === 'UP', 60_000)
    const switchedMs = performance.now() - killedAt
    await waitFor('the rpc is ready after the switch', ready, 60_000)
    const readyMs = performance.now() - killedAt
    log(`promoted after ${promotedMs.toFixed(0)} ms, haproxy switched after ${switchedMs.toFixed(0)} ms, the rpc ready after ${readyMs.toFixed(0)} ms`)
    // Load on the new primary for a while, to see that nothing fails after readiness.
    await sleep(3000)
    const loadResult = await load.stop()

    let timer: NodeJS.Timeout | undefined
    const indexerExit = await Promise.race([
      indexer.exited,
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), options.timeoutMs)
      }),
    ]).finally(() => clearTimeout(timer))
    // Note: SIGTERM flushes the usage counted since the last flush.
    const rpcExit = await rpc.stop('SIGTERM')
    if (rpcExit !== 0) log(`the rpc exited ${rpcExit} on SIGTERM`)
    const [counted] = await db
      .select({ requests: sql<string>`coalesce(sum(${usageDaily.requests}), 0)`, errors: sql<string>`coalesce(sum(${usageDaily.errors}), 0)` })
      .from(usageDaily)
      .where(eq(usageDaily.keyId, row.id))
    const status = await runCli(['status', '--config', `${config}.json`], { env })
    const rpcLines = jsonLines(rpc.stderr())
    const failures = loadResult.failures.map((f) => f.dueAt - killedAt)
    return {
      blocks: options.blocks,
      seed: options.seed,
      killedAtBlock,
      primaryDownsBeforeKill,
      promotedMs,
      switchedMs,
      readyMs,
      readyAfterSwitchMs: readyMs - switchedMs,
      load: loadResult,
      failedBeforeKill: failures.filter((t) => t < 0).length,
      failedAfterReady: failures.filter((t) => t > readyMs + graceMs).length,
      lastFailureMs: failures.length === 0 ? undefined : Math.max(...failures),
      usage: { requests: Number(counted?.requests ?? 0), errors: Number(counted?.errors ?? 0) },
      rpcErrorsAnswered: loadResult.failures.filter((f) => f.reason.startsWith('rpc ')).length,
      indexerExit,
      storedBlocks: await countBlocks(db, { network }),
      chainProblems: await compareWithNode(db, { network, url: nodeUrl, from: 0n, head: BigInt(options.blocks - 1) }),
      status: { code: status.code, stdout: status.stdout },
      rpcWarnings: rpcLines.reduce<Record<string, number>>((counts, l) => {
        if (typeof l === 'object' && Number(l.level) >= 40) counts[String(l.msg)] = (counts[String(l.msg)] ?? 0) + 1
        return counts
      }, {}),
      rawLogLines: [...jsonLines(indexer.stderr()), ...rpcLines].filter((l): l is string => typeof l === 'string'),
      indexerLogTail: indexerExit === 0 ? undefined : indexer.stderr().slice(-4000),
    }
  } finally {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')))
    for (const step of closers.reverse()) await Promise.resolve(step()).catch(() => undefined)
  }
}
