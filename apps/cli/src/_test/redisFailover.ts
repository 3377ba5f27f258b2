import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRedisClient, redisKeyPrefix } from '@uncle-rpc/config'
import { createDb } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { countBlocks } from '@uncle-rpc/db/chain'
import { createTestDatabase } from '@uncle-rpc/db/testing'
import { sleep } from '@uncle-rpc/process'
import { type CliProcess, runCli, type SentinelGroup, seededRandom, sentinelTools, spawnCli, startSentinelGroup } from '@uncle-rpc/testing'
import { compareWithNode, nodeBlocks } from '../../../indexer/src/_test/compareWithNode.js'
import { jsonLines } from './logLines.js'
import { type OpenLoadResult, startOpenLoad } from './openLoad.js'

// Test-only (and bench/redis-failover.ts): the whole system on Redis under Sentinel while the
// primary is SIGKILLed. A slowed sample node, one indexer backfilling it, one rpc process under
// open-loop load with a rate-limited key, all on REDIS_URL=redis+sentinel://… of a private
// primary + replica + 3 sentinels. Returns what happened; the caller decides what must hold.

export type RedisFailoverOptions = {
  blocks: number
  /** Requests per second sent to the rpc (open loop), from before the kill until limits are shared again. */
  rate: number
  /** The node's added delay per HTTP request, `a` or `a-b` ms. */
  nodeLatencyMs: string
  /** Indexer flags (range and batch sizes). */
  indexerArgs?: readonly string[]
  /** Kill the primary once this share of the blocks is indexed; undefined: no kill (a baseline). */
  killAt: number | undefined
  seed: number
  /** Longest wait for the indexer to finish (ms). */
  timeoutMs: number
  log?: (line: string) => void
}

export type RedisFailoverResult = {
  blocks: number
  seed: number
  indexSeconds: number
  /** Blocks in the database at the kill. */
  killedAtBlock: number | undefined
  /** SIGKILL → every sentinel names the promoted replica. */
  failoverMs: number | undefined
  indexerExit: number | string
  /** Rows in the blocks table, and differences from the node's chain (empty: equal). */
  storedBlocks: number
  chainProblems: string[]
  /** The indexer's own counts: blocks fetched (a job run again after the failover fetches again) and written. */
  fetched: number
  written: number
  load: OpenLoadResult
  /** The rpc's limiter: how long it decided per process, and how many requests it decided so. */
  limiter: { failedOpen: boolean; downMs: number | undefined; requestsInFallback: number | undefined }
  /** The day's count of the key on the replica just before the kill, and on the promoted primary at the end. */
  dailyCount: { beforeKill: number | undefined; promotedAtEnd: number | undefined }
  /** Rate-limit keys of the deployment on the promoted primary at the end. */
  limitKeysOnPromoted: number | undefined
  /** The rpc's warnings and errors, counted by message. */
  rpcWarnings: Record<string, number>
  /** stderr lines of the indexer and the rpc that are not JSON (raw stacks from a client library). */
  rawLogLines: string[]
  /** `uncle-rpc status` after the run (on the promoted primary, through the sentinels). */
  status: { code: number | string; stdout: string }
  /** The end of the indexer's log, when it did not exit 0 (for the failure message). */
  indexerLogTail: string | undefined
}


/** The sentinel tools, or undefined (with a line saying what to install; under CI: throws). */
export const failoverTools = sentinelTools

/** Runs the scenario; every process it started is stopped and the database dropped before it returns. */
export async function runRedisFailover(tools: { server: string; sentinel: string }, options: RedisFailoverOptions): Promise<RedisFailoverResult> {
  const log = options.log ?? (() => undefined)
  const processes: CliProcess[] = []
  let group: SentinelGroup | undefined
  const database = await createTestDatabase()
  const { db, close } = createDb({ url: database.url, max: 2 })
  try {
    group = await startSentinelGroup(tools)
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', String(options.blocks), '--seed', String(options.seed), '--fault-latency-ms', options.nodeLatencyMs])
    processes.push(node)
    const nodeUrl = (await node.waitFor(/listening on (http:\/\/\S+)/, 120_000))[1] as string
    const network = 'failover'
    const config = join(tmpdir(), `uncle-rpc-redis-failover-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(
      config,
      JSON.stringify({ networks: [{ name: network, chainId: 1337, rpcUrl: nodeUrl, fromBlock: 0, toBlock: options.blocks - 1, confirmations: 0 }] }),
    )
    const env = { DATABASE_URL: database.url, REDIS_URL: group.url }
    const { key, row } = await createApiKey(db, { plan: 'custom', label: 'failover', rpsLimit: 100_000, dailyLimit: 1_000_000_000 })
    // Note: usage is not flushed during the run, so a daily count Redis lost would start again
    // from 0 (usage_daily): a count on the promoted primary at least the one before the kill was kept.
    const rpc = spawnCli(['rpc', '--port', '0', '--config', config, '--usage-flush-ms', '3600000'], { env: { ...env, LOG_LEVEL: 'warn' } })
    processes.push(rpc)
    const port = (await rpc.waitFor(/rpc listening on http:\/\/127\.0\.0\.1:(\d+)\//, 60_000))[1]
    const hashes = (await nodeBlocks(nodeUrl, 0n, BigInt(Math.min(options.blocks, 2_000) - 1))).map((b) => b.hash)
    const next = seededRandom(options.seed)
    let id = 0
    const load = startOpenLoad(`http://127.0.0.1:${port}/v3/${key}`, options.rate, () => ({
      text: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'eth_getUncleByBlockHashAndIndex', params: [hashes[Math.floor(next() * hashes.length)], '0x0'] }),
    }))

    const started = performance.now()
    const indexer = spawnCli(['indexer', '--config', config, '--exit-when-done', ...(options.indexerArgs ?? [])], { env: { ...env, LOG_LEVEL: 'info' } })
    processes.push(indexer)
    // The key's count of the UTC day (`…:rl:<key id>:d:<day>`), summed in case the run spans midnight.
    const dailyCount = async (url: string) => {
      const client = createRedisClient(url)
      try {
        const keys = await client.keys(`${redisKeyPrefix(database.url)}:rl:${row.id}:d:*`)
        return keys.length === 0 ? 0 : (await client.mget(...keys)).reduce((sum, v) => sum + Number(v ?? 0), 0)
      } finally {
        client.disconnect()
      }
    }
    let killedAtBlock: number | undefined
    let failoverMs: number | undefined
    let dailyBeforeKill: number | undefined
    if (options.killAt !== undefined) {
      // Note: a condition polled from the database (no event says "a third is indexed").
      const wanted = Math.floor(options.blocks * options.killAt)
      while ((killedAtBlock = await countBlocks(db, { network })) < wanted) {
        if (indexer.child.exitCode !== null) throw new Error(`the indexer exited before the kill:\n${indexer.stderr().slice(-3000)}`)
        await sleep(100)
      }
      dailyBeforeKill = await dailyCount(group.replicaUrl() ?? '')
      log(`killing the Redis primary at ${killedAtBlock} of ${options.blocks} blocks (daily count on the replica: ${dailyBeforeKill})`)
      ;({ failoverMs } = await group.killPrimary())
      log(`promoted the replica after ${failoverMs} ms`)
    }
    let timer: NodeJS.Timeout | undefined
    const indexerExit = await Promise.race([
      indexer.exited,
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), options.timeoutMs)
      }),
    ]).finally(() => clearTimeout(timer))
    const indexSeconds = (performance.now() - started) / 1000
    log(`indexer exited (${indexerExit}) after ${indexSeconds.toFixed(1)} s`)
    const restored =
      options.killAt === undefined
        ? undefined
        : jsonLines((await rpc.waitFor(/shared limits restored.*\n/, 60_000)).input).find(
            (l): l is Record<string, unknown> => typeof l === 'object' && String(l.msg).includes('shared limits restored'),
          )
    // A second more of load on shared limits, then the promoted primary must hold the day's count.
    await sleep(1000)
    const loadResult = await load.stop()

    let dailyAtEnd: number | undefined
    let limitKeys: number | undefined
    if (options.killAt !== undefined) {
      dailyAtEnd = await dailyCount(group.primaryUrl())
      const promoted = createRedisClient(group.primaryUrl())
      try {
        limitKeys = (await promoted.keys(`${redisKeyPrefix(database.url)}:rl:*`)).length
      } finally {
        promoted.disconnect()
      }
    }
    const status = await runCli(['status', '--config', config], { env })
    const stopped = jsonLines(indexer.stderr()).find((l): l is Record<string, unknown> => typeof l === 'object' && l.msg === 'indexer stopped')
    const rpcLines = jsonLines(rpc.stderr())
    return {
      blocks: options.blocks,
      seed: options.seed,
      indexSeconds,
      killedAtBlock,
      failoverMs,
      indexerExit,
      storedBlocks: await countBlocks(db, { network }),
      chainProblems: await compareWithNode(db, { network, url: nodeUrl, from: 0n, head: BigInt(options.blocks - 1) }),
      fetched: Number(stopped?.blocks_indexed ?? -1),
      written: Number(stopped?.blocks_written ?? -1),
      load: loadResult,
      limiter: {
        failedOpen: rpcLines.some((l) => typeof l === 'object' && String(l.msg).includes('failing open')),
        downMs: restored === undefined ? undefined : Number(restored.down_ms),
        requestsInFallback: restored === undefined ? undefined : Number(restored.requests_in_fallback),
      },
      dailyCount: { beforeKill: dailyBeforeKill, promotedAtEnd: dailyAtEnd },
      limitKeysOnPromoted: limitKeys,
      rpcWarnings: rpcLines.reduce<Record<string, number>>((counts, l) => {
        if (typeof l === 'object' && Number(l.level) >= 40) counts[String(l.msg)] = (counts[String(l.msg)] ?? 0) + 1
        return counts
      }, {}),
      rawLogLines: [...jsonLines(indexer.stderr()), ...rpcLines].filter((l): l is string => typeof l === 'string'),
      status: { code: status.code, stdout: status.stdout },
      indexerLogTail: indexerExit === 0 ? undefined : indexer.stderr().slice(-4000),
    }
  } finally {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')))
    await close()
    await group?.close()
    await database.drop()
  }
}
