import { parseArgs } from 'node:util'
import { requireTool } from '@uncle-rpc/testing'
import { graceMs, runPostgresFailover } from '../apps/cli/src/_test/postgresFailover.js'

// npm run bench:postgres-failover -- [--blocks 6000] [--rate 300] [--node-latency-ms 100-150]
//   [--kill-at 0.4] [--seed <n>] [--rpc-args "<flags>"]
// Issue 30's failover acceptance at full rate: a private Postgres primary and its streaming
// replica behind HAProxy (Patroni-like /primary checks every 250 ms, on-marked-down
// shutdown-sessions); one indexer backfills --blocks from a slowed sample node while one rpc
// process serves --rate requests/s (open loop, half known uncles, half unknown hashes,
// --cache-entries 0); the primary is SIGKILLed once --kill-at of the blocks are indexed and the
// replica promoted. Prints when HAProxy switched and the rpc was ready again, the failed requests
// and where they fall, usage against the answers, the chain against the node; exits 1 when the
// acceptance is not met (failures outside the switch window, ready > 2 s after the switch,
// usage off, a block missing or wrong, a gap). (apps/cli/src/postgresFailover.test.ts runs it
// on 3,000 blocks at 60 requests/s.)

const { values: flags } = parseArgs({
  options: {
    blocks: { type: 'string', default: '6000' },
    rate: { type: 'string', default: '300' },
    'node-latency-ms': { type: 'string', default: '100-150' },
    'kill-at': { type: 'string', default: '0.4' },
    seed: { type: 'string', default: String(Date.now() % 100_000) },
    'rpc-args': { type: 'string', default: '' },
  },
})
const log = (line: string) => process.stderr.write(`${line}\n`)
const haproxy = requireTool('haproxy', 'haproxy')
if (haproxy === undefined) process.exit(2)

const r = await runPostgresFailover({
  haproxy,
  blocks: Number(flags.blocks),
  rate: Number(flags.rate),
  nodeLatencyMs: flags['node-latency-ms'],
  indexerArgs: ['--range-size', '100', '--batch-size', '10', '--concurrency', '2'],
  rpcArgs: flags['rpc-args'].split(' ').filter(Boolean),
  killAt: Number(flags['kill-at']),
  seed: Number(flags.seed),
  timeoutMs: 3_600_000,
  log: (line) => log(`  ${line}`),
})
const { failures, ...load } = r.load
log(`postgres failover bench: ${r.blocks} blocks, ${flags.rate} req/s, node latency ${flags['node-latency-ms']} ms, seed ${r.seed}${flags['rpc-args'] ? `, rpc ${flags['rpc-args']}` : ''}`)
log(`  primary killed at  block ${r.killedAtBlock} (HAProxy took it out ${r.primaryDownsBeforeKill} times before)`)
log(`  switch             promoted +${r.promotedMs.toFixed(0)} ms, haproxy on the new primary +${r.switchedMs.toFixed(0)} ms, rpc ready +${r.readyMs.toFixed(0)} ms: ${r.readyAfterSwitchMs.toFixed(0)} ms after the switch`)
log(`  rpc                ${load.sent} sent, ${load.answered} answered, ${load.failed} failed ${JSON.stringify(load.reasons)}; p50 ${load.p50Ms.toFixed(1)} ms, p99 ${load.p99Ms.toFixed(1)} ms, max ${load.maxMs.toFixed(1)} ms`)
log(`  failures           ${r.failedBeforeKill} before the kill, ${r.failedAfterReady} after ready + ${graceMs} ms; the last one due +${r.lastFailureMs?.toFixed(0) ?? '-'} ms`)
log(`  usage              ${r.usage.requests} requests, ${r.usage.errors} errors counted; ${load.responded} answered with HTTP 200, ${r.rpcErrorsAnswered} of them errors`)
log(`  blocks             ${r.storedBlocks} stored of ${r.blocks}; differences from the node: ${r.chainProblems.length}; indexer exit ${r.indexerExit}; status exit ${r.status.code}, ${/gaps: none/.test(r.status.stdout) ? 'no gap' : 'GAPS'}`)
log(`  rpc warnings       ${JSON.stringify(r.rpcWarnings)}`)
process.stdout.write(`${JSON.stringify({ ...r, load, lastFailures: failures.slice(-3), status: { code: r.status.code }, chainProblems: r.chainProblems.slice(0, 10) })}\n`)

const ok =
  r.primaryDownsBeforeKill === 0 &&
  r.failedBeforeKill === 0 &&
  r.failedAfterReady === 0 &&
  r.readyAfterSwitchMs <= 2000 &&
  !Object.keys(load.reasons).some((reason) => reason.startsWith('wrong answer')) &&
  r.usage.requests === load.responded &&
  r.usage.errors === r.rpcErrorsAnswered &&
  r.indexerExit === 0 &&
  r.storedBlocks === r.blocks &&
  r.chainProblems.length === 0 &&
  /gaps: none/.test(r.status.stdout)
log(ok ? 'acceptance: met' : 'acceptance: NOT met')
process.exitCode = ok ? 0 : 1
