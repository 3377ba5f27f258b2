// npm run soak -- [--minutes 4] [--rate 150] [--ws-share 0.4] [--seed <n>] [--faults a,b,…] [--haproxy auto|off] [--redis auto|single] [--keep-logs]
//
// The whole fleet on this machine for --minutes under open-loop load, with one fault a minute;
// docs/soak.md says what runs, what counts as failed and how to read the output. Prints one JSON
// line per minute and, last, one JSON summary; exits 1 when the summary misses the acceptance
// thresholds (bench/soak/summary.ts), 2 when the fleet could not be started.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createDb, migrateDatabase } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { createTcpProxy, findTool, type PostgresServer, seededRandom, startPostgresServer, startStreamingReplica, type TcpProxy } from '@uncle-rpc/testing'
import pg from 'pg'
import { openLoop } from './openLoop.js'
import { type Call, createCalls, type KnownUncle, unavailablePrefix } from './soak/calls.js'
import { checkChain, indexedHash, nodeBlocks, nodeHead } from './soak/chainCheck.js'
import { createRole, type Proxy, type Role, rpcPorts, rssMb, startProxy, until } from './soak/fleet.js'
import { type RedisFleet, startSentinelRedis, startSingleRedis } from './soak/redisFleet.js'
import {
  type FaultRecord,
  type MinuteLine,
  mergeWindows,
  minuteLine,
  missedThresholds,
  type RssSample,
  rssGrowth,
  summarize,
  type Window,
} from './soak/summary.js'
import { startWsOpenLoop } from './soak/wsOpenLoop.js'

// Note: in this order a 4-minute run meets four kinds, the Redis primary's death among them.
const faultNames = ['kill-indexer', 'kill-redis-primary', 'restart-rpc', 'freeze-postgres', 'freeze-redis', 'failover-postgres'] as const
type FaultName = (typeof faultNames)[number]

const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string', default: '4' },
    rate: { type: 'string', default: '150' },
    'ws-share': { type: 'string', default: '0.4' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    blocks: { type: 'string', default: '5000' },
    'block-time': { type: 'string', default: '2000' },
    'reorg-rate': { type: 'string', default: '0.1' },
    'freeze-ms': { type: 'string', default: '10000' },
    faults: { type: 'string', default: faultNames.join(',') },
    haproxy: { type: 'string', default: 'auto' },
    redis: { type: 'string', default: 'auto' },
    'keep-logs': { type: 'boolean', default: false },
  },
})
const minutes = Number(flags.minutes)
const rate = Number(flags.rate)
const wsRate = rate * Number(flags['ws-share'])
const seed = Number(flags.seed)
const blockTimeMs = Number(flags['block-time'])
const freezeMs = Number(flags['freeze-ms'])
const rota = flags.faults.split(',').filter(Boolean) as FaultName[]
for (const f of rota) if (!faultNames.includes(f)) throw new Error(`unknown fault ${f}: one of ${faultNames.join(', ')}`)
if (!(minutes >= 1) || !(rate > 0)) throw new Error('--minutes and --rate must be positive')
if (flags.haproxy !== 'auto' && flags.haproxy !== 'off') throw new Error('--haproxy is auto (when installed) or off')
if (flags.redis !== 'auto' && flags.redis !== 'single') throw new Error('--redis is auto (Sentinel when redis-sentinel is installed) or single')

const network = 'soak'
const faultAtMs = 20_000
/** Live blocks go on this long past the planned load (the fleet's start-up comes out of it), then the chain stops so the index can be compared with a still chain. */
const setupAllowanceMs = 45_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const say = (line: string) => process.stderr.write(`soak: ${line}\n`)
const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)

const dir = mkdtempSync(join(tmpdir(), 'uncle-rpc-soak-'))
say(`seed ${seed}; logs in ${dir}`)
const cleanups: (() => Promise<void> | void)[] = []
const cleanup = async () => {
  for (const step of cleanups.splice(0).reverse()) await Promise.resolve(step()).catch((error: unknown) => say(`cleanup: ${(error as Error).message}`))
}
process.once('SIGINT', () => void cleanup().then(() => process.exit(130)))

type Fleet = {
  /** The Postgres primary and its streaming replica; a failover promotes the replica and starts a new one. */
  postgres: { primary: PostgresServer; replica: PostgresServer }
  /** The one address of the primary every process uses (a virtual IP's part: moved at a failover). */
  postgresAddress: TcpProxy
  redis: RedisFleet
  pool: pg.Pool
  node: Role
  nodeUrl: string
  chainStopped: () => boolean
  indexers: Role[]
  rpcs: { role: Role; ports: { port: number; checkPort: number } }[]
  proxy: Proxy | undefined
  base: string
  key: string
}

async function startFleet(): Promise<Fleet> {
  const primary = await startPostgresServer()
  const postgres = { primary, replica: await startStreamingReplica(primary) }
  cleanups.push(() => postgres.primary.remove())
  cleanups.push(() => postgres.replica.remove())
  const postgresAddress = await createTcpProxy({ host: '127.0.0.1', port: primary.port })
  cleanups.push(() => postgresAddress.close())
  await migrateDatabase({ url: primary.url('uncle_rpc_soak') })
  const databaseUrl = `postgres://postgres@127.0.0.1:${postgresAddress.port}/uncle_rpc_soak`
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2, query_timeout: 5000, connectionTimeoutMillis: 5000 })
  pool.on('error', () => undefined) // Note: a frozen or restarted server; the next query says so.
  cleanups.push(() => pool.end())
  const server = findTool('redis-server')
  const sentinel = findTool('redis-sentinel')
  const redis = flags.redis === 'auto' && server !== undefined && sentinel !== undefined ? await startSentinelRedis({ server, sentinel }) : await startSingleRedis()
  cleanups.push(() => redis.stop())
  say(`postgres 127.0.0.1:${primary.port} (private, with a streaming replica on ${postgres.replica.port}) at 127.0.0.1:${postgresAddress.port}, redis: ${redis.kind} at ${redis.url}`)
  const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redis.url, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' }

  let stopped = false
  const ticks = Math.ceil((minutes * 60_000 + setupAllowanceMs) / blockTimeMs)
  const nodeArgs = ['sample-node', '--port', '0', '--synthetic', flags.blocks, '--seed', String(seed), '--block-time', flags['block-time'], '--reorg-rate', flags['reorg-rate'], '--reorg-depth', '3', '--stop-after', String(ticks)]
  const node = createRole('sample-node', dir, () => nodeArgs, env, [/^sample-node listening on (http:\/\/\S+)/m], (line) => {
    if (line.includes('live chain stopped')) stopped = true
  })
  cleanups.push(() => node.retire())
  await node.start()
  const nodeUrl = (await node.child().waitForLine(/^sample-node listening on (http:\/\/\S+)/m))[1]!
  // Note: the node's port is fixed from here on; a restarted node would serve a new chain, so it is never restarted by a fault.
  const config = join(dir, 'networks.json')
  writeFileSync(config, JSON.stringify({ networks: [{ name: network, chainId: 1337, rpcUrl: nodeUrl, confirmations: 0 }] }))

  const indexers = [1, 2].map((i) => createRole(`indexer-${i}`, dir, () => ['indexer', '--config', config, '--metrics-port', '0'], env, [/^indexer metrics on /m]))
  for (const indexer of indexers) cleanups.push(() => indexer.retire())
  await Promise.all(indexers.map((i) => i.start()))
  const caughtUp = await until(async () => {
    const head = await nodeHead(nodeUrl)
    return (await indexedHash(pool, network, head.number - 2)) !== undefined
  }, 180_000)
  if (!caughtUp) throw new Error('the indexers did not catch up with the node within 3 minutes')

  const { db, close } = createDb({ url: databaseUrl, max: 1 })
  const { key } = await createApiKey(db, { plan: 'custom', rpsLimit: 1_000_000, dailyLimit: 1_000_000_000, batchLimit: 1000, label: 'soak' }).finally(close)

  const haproxyInstalled = flags.haproxy === 'auto' && findTool('haproxy') !== undefined
  const rpcCount = haproxyInstalled ? 2 : 1
  const rpcs = await Promise.all(
    Array.from({ length: rpcCount }, async (_, i) => {
      const ports = await rpcPorts()
      const args = ['rpc', '--config', config, '--port', String(ports.port), '--metrics-port', String(ports.checkPort), ...(haproxyInstalled ? [] : ['--workers', '2'])]
      const role = createRole(`rpc-${i + 1}`, dir, () => args, env, [/^rpc listening on /m, /^rpc metrics on /m])
      cleanups.push(() => role.retire())
      await role.start()
      return { role, ports }
    }),
  )
  const proxy = haproxyInstalled ? await startProxy(dir, rpcs.map((r) => r.ports)) : undefined
  if (proxy !== undefined) {
    cleanups.push(() => proxy.stop())
    const up = await until(async () => Object.values(await proxy.statuses()).filter((s) => s === 'UP').length === rpcs.length, 60_000)
    if (!up) throw new Error(`haproxy does not see the rpc processes UP: ${JSON.stringify(await proxy.statuses().catch(() => ({})))}`)
  }
  const base = proxy?.url ?? `127.0.0.1:${rpcs[0]!.ports.port}`
  say(`${rpcs.length} rpc process(es)${proxy ? ' behind haproxy' : ' with --workers 2 (no haproxy)'} at ${base}; 2 indexers; node ${nodeUrl}`)
  return { postgres, postgresAddress, redis, pool, node, nodeUrl, chainStopped: () => stopped, indexers, rpcs, proxy, base, key }
}

/** Canonical uncles at least 32 blocks deep (no reorg reaches them): the known-uncle calls' targets. */
async function knownUncles(pool: pg.Pool): Promise<KnownUncle[]> {
  const { rows } = await pool.query<{ block_hash: string; index: number; hash: string }>(
    `select '0x' || encode(u.block_hash, 'hex') as block_hash, u.index, '0x' || encode(u.hash, 'hex') as hash
       from uncles u join blocks b on b.network = u.network and b.hash = u.block_hash
      where u.network = $1 and b.canonical
        and b.number <= (select max(number) from blocks where network = $1 and canonical) - 32`,
    [network],
  )
  return rows.map((r) => ({ blockHash: r.block_hash, index: `0x${r.index.toString(16)}`, hash: r.hash }))
}

/** Whether a Postgres outage is on: from a freeze until the rpc processes are ready again, and 2 s more for answers under way. */
let postgresOutage = false

/** A call's check, with the rpc's documented "index cannot answer" kept apart only during a Postgres outage; at any other time it is a failure. */
function judged(call: Call, text: string): string | undefined {
  const reason = call.check(text)
  if (reason?.startsWith(unavailablePrefix) && !postgresOutage) return `${reason.slice(unavailablePrefix.length).trim()} (no postgres outage)`
  return reason
}

/** Every rpc's admin /ready answers 200. */
async function allReady(fleet: Fleet): Promise<boolean> {
  const answers = await Promise.all(fleet.rpcs.map((r) => fetch(`http://127.0.0.1:${r.ports.checkPort}/ready`, { signal: AbortSignal.timeout(2000) }).then((res) => res.status)))
  return answers.every((status) => status === 200)
}

/** Carries out one fault and waits for the fleet to be whole again (every rpc ready, HAProxy seeing them UP). */
async function runFault(fleet: Fleet, minute: number, fault: FaultName): Promise<FaultRecord> {
  const started = performance.now()
  let detail: string | undefined
  let timer: NodeJS.Timeout | undefined
  // Note: a fault that hangs (a process that never prints its startup line) fails its minute instead of stopping the run.
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('not carried out within 120 s')), 120_000)))
  try {
    await Promise.race([carryOut(fleet, fault, (text) => (detail = text)), hung])
    const ready = await until(async () => {
      if (!(await allReady(fleet))) return false
      return fleet.proxy === undefined || Object.values(await fleet.proxy.statuses()).every((s) => s === 'UP')
    }, 60_000)
    if (!ready) detail = [detail, 'the rpc processes were not all ready 60 s after'].filter(Boolean).join('; ')
  } catch (error) {
    detail = (error as Error).message
  } finally {
    clearTimeout(timer)
  }
  if (fault === 'freeze-postgres' || fault === 'failover-postgres') setTimeout(() => (postgresOutage = false), 2000)
  return { minute, fault, ok: detail === undefined, recoveredMs: Math.round(performance.now() - started), ...(detail === undefined ? {} : { detail }) }
}

/** The fault itself; `note` records what went wrong without stopping it. */
async function carryOut(fleet: Fleet, fault: FaultName, note: (text: string) => void): Promise<void> {
  switch (fault) {
    case 'kill-indexer': {
      // Note: always the first indexer; the second one runs the whole soak, so its RSS tells of leaks.
      await fleet.indexers[0]!.stop('SIGKILL')
      await fleet.indexers[0]!.start()
      break
    }
    case 'restart-rpc': {
      const code = await fleet.rpcs[0]!.role.stop('SIGTERM')
      if (code !== 0) note(`rpc-1 exited ${code} on SIGTERM`)
      await fleet.rpcs[0]!.role.start()
      break
    }
    case 'freeze-redis':
      await fleet.redis.freeze(freezeMs)
      break
    case 'freeze-postgres':
      postgresOutage = true
      fleet.postgres.primary.freeze()
      await sleep(freezeMs)
      fleet.postgres.primary.thaw()
      break
    case 'failover-postgres': {
      // The primary killed, its replica promoted and the address moved to it (open sessions cut):
      // what Patroni behind HAProxy or a managed service does. Then a new replica of the new primary.
      postgresOutage = true
      const { primary: old, replica: next } = fleet.postgres
      await old.stop('SIGKILL')
      await next.promote()
      fleet.postgresAddress.retarget({ host: '127.0.0.1', port: next.port })
      fleet.postgres.primary = next
      await old.remove()
      fleet.postgres.replica = await startStreamingReplica(next)
      break
    }
    case 'kill-redis-primary':
      await fleet.redis.killPrimary()
      break
  }
}

function sampleRss(fleet: Fleet): RssSample {
  const sample: RssSample = {}
  const add = (name: string, pid: number | undefined, children = true) => {
    const mb = rssMb(pid, { children })
    if (pid !== undefined && mb !== undefined) sample[name] = { pid, mb }
  }
  for (const role of [fleet.node, ...fleet.indexers, ...fleet.rpcs.map((r) => r.role)]) add(role.name, role.child().process.pid)
  add('haproxy', fleet.proxy?.pid())
  for (const [name, pid] of Object.entries(fleet.redis.pids())) add(name, pid)
  // Note: the soak's own RSS, without its children (they are the fleet).
  add('soak', process.pid, false)
  return sample
}

async function main(): Promise<number> {
  let fleet: Fleet
  try {
    fleet = await startFleet()
  } catch (error) {
    say(`the fleet did not start: ${(error as Error).stack ?? String(error)}`)
    return 2
  }
  let known = await knownUncles(fleet.pool)
  say(`${known.length} known uncles; load ${rate} requests/s (${wsRate} over WebSocket) for ${minutes} min; faults: ${rota.join(', ')}`)
  const random = seededRandom(seed)
  const calls = createCalls(random, () => known)
  const ws = startWsOpenLoop({
    url: `ws://${fleet.base}/ws/v3/${fleet.key}`,
    rate: wsRate,
    connections: 4,
    make: (n) => {
      const call = calls.make(n)
      return { ...call, check: (text) => judged(call, text) }
    },
  })

  const windows: Window[] = []
  const faults: FaultRecord[] = []
  const rss: RssSample[] = []
  const lines: Promise<MinuteLine>[] = []
  const t0 = performance.now()
  for (let minute = 1; minute <= minutes; minute++) {
    // Note: a refresh that fails (a frozen database) keeps the list it had.
    known = await knownUncles(fleet.pool).catch(() => known)
    const httpCalls: Call[] = []
    const http = openLoop({
      url: `http://${fleet.base}/v3/${fleet.key}`,
      rate: rate - wsRate,
      seconds: 60 - (performance.now() - t0 - (minute - 1) * 60_000) / 1000,
      body: (n) => (httpCalls[n] = calls.make(n)).body,
      check: (n, text) => judged(httpCalls[n]!, text),
      kind: (n) => `${httpCalls[n]!.kind}/http`,
    })
    const wsWindow = ws.nextWindow()
    const fault = rota[(minute - 1) % rota.length]!
    const faultDone = sleep(faultAtMs).then(() => runFault(fleet, minute, fault))
    await sleep(t0 + minute * 60_000 - performance.now())
    const sample = sampleRss(fleet)
    rss.push(sample)
    // Note: a minute's line waits for its last answers and the line before it; the next minute's load does not wait.
    lines.push(
      Promise.all([http, ws.settled(wsWindow), faultDone, lines.at(-1)]).then(([h, , f]) => {
        const httpWindow: Window = { requests: h.sent, failed: h.failed, reasons: h.reasons, latencies: h.latencies }
        windows.push(httpWindow, wsWindow)
        faults.push(f)
        const line = minuteLine(minute, mergeWindows([httpWindow, wsWindow]), sample, f)
        print(line)
        return line
      }),
    )
  }
  await ws.stop()
  await Promise.all(lines)

  say('load done; waiting for the live chain to stop and the index to catch up')
  await until(async () => fleet.chainStopped(), setupAllowanceMs + 30_000)
  const head = await nodeHead(fleet.nodeUrl)
  const caughtUp = await until(async () => (await indexedHash(fleet.pool, network, head.number)) === head.hash, 180_000)
  const chain = await checkChain(fleet.pool, network, await nodeBlocks(fleet.nodeUrl, 0, head.number))
  if (!caughtUp) chain.detail = `not caught up with head ${head.number} after 3 minutes; ${chain.detail}`
  const growth = rssGrowth(rss, [fleet.node.name, ...fleet.indexers.map((i) => i.name), ...fleet.rpcs.map((r) => r.role.name)])
  const summary = summarize(minutes, mergeWindows(windows), faults, growth, chain)
  const unexpected = [fleet.node, ...fleet.indexers, ...fleet.rpcs.map((r) => r.role)].flatMap((r) => r.unexpectedExits)
  const missed = missedThresholds(summary)
  if (unexpected.length > 0) missed.push(`processes exited unasked: ${unexpected.join('; ')}`)
  print({
    summary: true,
    ...summary,
    unexpectedExits: unexpected,
    seed,
    rate,
    redis: fleet.redis.kind,
    rpc: fleet.proxy ? '2 processes behind haproxy' : '1 process, --workers 2',
    pass: missed.length === 0,
    missed,
  })
  return missed.length === 0 ? 0 : 1
}

let code = 2
try {
  code = await main()
} finally {
  await cleanup()
  if (!flags['keep-logs'] && code === 0) rmSync(dir, { recursive: true, force: true })
  else say(`logs kept in ${dir}`)
}
process.exit(code)
