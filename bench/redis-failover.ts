import { parseArgs } from 'node:util'
import { failoverTools, type RedisFailoverResult, runRedisFailover } from '../apps/cli/src/_test/redisFailover.js'

// npm run bench:redis-failover -- [--blocks 300000] [--rate 200] [--node-latency-ms 20-40]
//   [--kill-at 0.33] [--seed <n>] [--no-baseline]
// Issue 21's acceptance at full size: a private Redis primary + replica + 3 sentinels,
// REDIS_URL=redis+sentinel://…; one indexer backfills --blocks from a slowed sample node while one
// rpc process serves --rate requests/s (open loop, a rate-limited key); the primary is SIGKILLed
// once --kill-at of the blocks are indexed. First the same run without a kill (the baseline), so
// the failover's cost shows as a ratio of backfill times. Prints figures and one JSON line per
// run; exits 1 when a request failed, a block is missing or wrong, or the promoted replica lost
// the limit state. (apps/cli/src/redisFailover.test.ts runs the same scenario on 4,000 blocks.)

const { values: flags } = parseArgs({
  options: {
    blocks: { type: 'string', default: '300000' },
    rate: { type: 'string', default: '200' },
    'node-latency-ms': { type: 'string', default: '20-40' },
    'kill-at': { type: 'string', default: '0.33' },
    seed: { type: 'string', default: String(Date.now() % 100_000) },
    'no-baseline': { type: 'boolean', default: false },
  },
})
const log = (line: string) => process.stderr.write(`${line}\n`)
const tools = failoverTools()
if (tools === undefined) process.exit(2)

const common = {
  blocks: Number(flags.blocks),
  rate: Number(flags.rate),
  nodeLatencyMs: flags['node-latency-ms'],
  seed: Number(flags.seed),
  timeoutMs: 3_600_000,
  log: (line: string) => log(`  ${line}`),
}
log(`redis failover bench: ${common.blocks} blocks, ${common.rate} req/s, node latency ${common.nodeLatencyMs} ms, seed ${common.seed}`)

function report(name: string, r: RedisFailoverResult) {
  const l = r.load
  log(`${name}:`)
  log(`  backfill           ${r.indexSeconds.toFixed(1)} s (${Math.round(r.blocks / r.indexSeconds)} blocks/s), indexer exit ${r.indexerExit}`)
  if (r.failoverMs !== undefined) log(`  primary killed at  block ${r.killedAtBlock}; every sentinel named the replica after ${r.failoverMs} ms`)
  log(`  blocks             ${r.storedBlocks} stored of ${r.blocks}; fetched ${r.fetched}, written ${r.written}; differences from the node: ${r.chainProblems.length}`)
  log(`  rpc                ${l.sent} sent, ${l.answered} answered, ${l.failed} failed ${JSON.stringify(l.reasons)}; p50 ${l.p50Ms.toFixed(1)} ms, p99 ${l.p99Ms.toFixed(1)} ms, max ${l.maxMs.toFixed(1)} ms`)
  if (r.failoverMs !== undefined) {
    log(`  limits             per process for ${r.limiter.downMs} ms (${r.limiter.requestsInFallback} requests decided locally), then shared again`)
    log(`  promoted replica   ${r.limitKeysOnPromoted} limit keys; the key's day count ${r.dailyCount.beforeKill} before the kill (on the replica), ${r.dailyCount.promotedAtEnd} at the end`)
  }
  log(`  status             exit ${r.status.code}`)
  log(`  rpc warnings       ${JSON.stringify(r.rpcWarnings)}`)
  process.stdout.write(`${JSON.stringify({ run: name, ...r, status: { code: r.status.code }, chainProblems: r.chainProblems.slice(0, 10) })}\n`)
}

const baseline = flags['no-baseline'] ? undefined : await runRedisFailover(tools, { ...common, killAt: undefined })
if (baseline) report('baseline (no kill)', baseline)
const failover = await runRedisFailover(tools, { ...common, killAt: Number(flags['kill-at']) })
report('primary SIGKILLed', failover)
if (baseline) log(`backfill time with the failover / without: ${(failover.indexSeconds / baseline.indexSeconds).toFixed(2)}`)

const ok =
  failover.indexerExit === 0 &&
  failover.load.failed === 0 &&
  failover.storedBlocks === failover.blocks &&
  failover.chainProblems.length === 0 &&
  (failover.limitKeysOnPromoted ?? 0) > 0 &&
  (failover.dailyCount.promotedAtEnd ?? 0) > (failover.dailyCount.beforeKill ?? Number.POSITIVE_INFINITY)
log(ok ? 'acceptance: met' : 'acceptance: NOT met')
process.exitCode = ok ? 0 : 1
