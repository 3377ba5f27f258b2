import { requireTool } from '@uncle-rpc/testing'
import { describe, expect, test } from 'vitest'
import { runPostgresFailover } from './_test/postgresFailover.js'

// Acceptance of Postgres failover behind HAProxy (issue 30), scaled down to fit a test: a private
// primary and its streaming replica behind HAProxy with a Patroni-like `/primary` check; the
// primary SIGKILLed while the indexer backfills from a slowed sample node and the rpc serves
// mixed known and unknown calls; the replica promoted, HAProxy switching by its check. At
// 300 requests/s: `npm run bench:postgres-failover`.

const haproxy = requireTool('haproxy', 'haproxy')
const seed = Number(process.env.SEED ?? Date.now() % 100_000)

describe.skipIf(haproxy === undefined)('Postgres primary SIGKILLed behind HAProxy, a replica promoted', () => {
  test('behavior: failures only in the switch window, the rpc ready again soon after the switch, usage exact, the chain equal to the node, no gap', async () => {
    const r = await runPostgresFailover({
      haproxy: haproxy!,
      blocks: 3_000,
      rate: 60,
      nodeLatencyMs: '100-150',
      indexerArgs: ['--range-size', '100', '--batch-size', '10', '--concurrency', '2'],
      killAt: 0.4,
      seed,
      timeoutMs: 60_000,
      log: (line) => process.stdout.write(`postgres failover: ${line}\n`),
    })
    const { failures, ...load } = r.load
    process.stdout.write(`postgres failover: ${JSON.stringify({ ...r, load, status: { code: r.status.code } })}\n`)
    // The rpc: requests fail only between the kill and its readiness after the switch (plus answers under way then).
    expect(load.sent).toBeGreaterThan(100)
    expect(r.primaryDownsBeforeKill).toBe(0)
    // Note: on a shared machine a read now and then misses the 250 ms deadline without any fault (1 in 250 seen at a load
    // average of 12); a few such are tolerated before the kill here, none in bench/postgres-failover.ts.
    expect(r.failedBeforeKill, JSON.stringify(load.reasons)).toBeLessThanOrEqual(Math.max(2, load.sent / 100))
    expect(r.failedAfterReady, JSON.stringify(failures.slice(-5))).toBe(0)
    expect(Object.keys(load.reasons).filter((reason) => reason.startsWith('wrong answer'))).toEqual([])
    // Ready again within 2 s of HAProxy's switch (the bound), doubled for a loaded machine.
    expect(r.readyAfterSwitchMs).toBeLessThan(4000)
    // Usage: every answered request counted, JSON-RPC errors among them, none twice.
    expect(r.usage).toEqual({ requests: load.responded, errors: r.rpcErrorsAnswered })
    // The indexer: the same process finished the backfill on the new primary, equal to the node, no gap.
    expect(r.indexerExit, r.indexerLogTail).toBe(0)
    expect(r.storedBlocks).toBe(r.blocks)
    expect(r.chainProblems).toEqual([])
    expect(r.status.code, r.status.stdout).toBe(0)
    expect(r.status.stdout).toContain('gaps: none')
    expect(r.rawLogLines.slice(0, 20)).toEqual([])
  }, 150_000)
})
