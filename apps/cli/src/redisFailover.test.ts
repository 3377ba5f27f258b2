import { describe, expect, test } from 'vitest'
import { failoverTools, runRedisFailover } from './_test/redisFailover.js'

// Acceptance of Redis under Sentinel (issue 21), scaled down to fit a test: a private primary +
// replica + 3 sentinels, REDIS_URL=redis+sentinel://…; the primary SIGKILLed while the indexer
// backfills from a slowed sample node and the rpc serves 200 requests/s. The full 300,000
// blocks: `npm run bench:redis-failover`.

const tools = failoverTools()
const seed = Number(process.env.SEED ?? Date.now() % 100_000)

describe.skipIf(tools === undefined)('Redis primary SIGKILLed under Sentinel', () => {
  test('behavior: every request answered, every block exactly once, workers resume without a restart, the promoted replica holds the limits', async () => {
    process.stdout.write(`redis failover: seed ${seed}\n`)
    const result = await runRedisFailover(tools!, {
      blocks: 4_000,
      rate: 200,
      nodeLatencyMs: '300-400',
      indexerArgs: ['--range-size', '100', '--batch-size', '50', '--concurrency', '4'],
      killAt: 0.25,
      seed,
      timeoutMs: 40_000,
      log: (line) => process.stdout.write(`redis failover: ${line}\n`),
    })
    process.stdout.write(`redis failover: ${JSON.stringify({ ...result, status: { code: result.status.code } })}\n`)
    // The rpc: no request failed; the limiter failed open while Redis was away, then shared again.
    expect(result.load.failed, JSON.stringify(result.load.reasons)).toBe(0)
    expect(result.load.answered).toBe(result.load.sent)
    expect(result.limiter.failedOpen).toBe(true)
    expect(result.limiter.downMs).toBeGreaterThan(0)
    // The indexer: the same process (never restarted) finished the range after the failover.
    expect(result.indexerExit, result.indexerLogTail).toBe(0)
    expect(result.killedAtBlock).toBeLessThan(result.blocks)
    expect(result.storedBlocks).toBe(result.blocks)
    expect(result.chainProblems).toEqual([])
    expect(result.written).toBe(result.blocks)
    // `uncle-rpc status` reads the queues through the sentinels too: nothing failed or left.
    expect(result.status.code, result.status.stdout).toBe(0)
    expect(result.status.stdout).toContain('gaps: none')
    expect(result.status.stdout).toContain('0 waiting, 0 active, 0 retrying, 0 failed')
    // The promoted replica holds the key's day count (and the rest of the limit keys), and counts on.
    expect(result.limitKeysOnPromoted).toBeGreaterThan(0)
    expect(result.dailyCount.beforeKill).toBeGreaterThan(0)
    expect(result.dailyCount.promotedAtEnd).toBeGreaterThan(result.dailyCount.beforeKill!)
    expect(result.rawLogLines.slice(0, 20)).toEqual([])
  }, 90_000)
})
