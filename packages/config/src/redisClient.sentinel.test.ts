import { type SentinelGroup, sentinelTools, startSentinelGroup } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test } from 'vitest'
import { createRedisClient } from './redisClient.js'

// The factory's clients under Redis Sentinel, against real processes: a primary, a replica and
// three sentinels of packages/testing; the primary is SIGKILLed and the replica promoted.

const tools = sentinelTools()

describe.skipIf(tools === undefined)('createRedisClient under Sentinel', () => {
  // Note: a group per test (ready in ~0.1 s), so no test depends on what another did to its primary.
  const groups: SentinelGroup[] = []
  afterAll(() => Promise.all(groups.map((g) => g.close())))
  const startGroup = async () => {
    const group = await startSentinelGroup(tools!)
    groups.push(group)
    return group
  }

  /** Connections subscribed to +switch-master on the sentinels (the clients' failover detectors). */
  async function detectorConnections(group: SentinelGroup): Promise<number> {
    let n = 0
    for (const port of group.sentinelPorts) {
      const sentinel = createRedisClient(`redis://127.0.0.1:${port}`)
      try {
        n += String(await sentinel.call('CLIENT', 'LIST')).split('\n').filter((line) => / sub=[1-9]/.test(line)).length
      } finally {
        sentinel.disconnect()
      }
    }
    return n
  }
  const until = async (condition: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 10_000
    // Note: a condition polled (nothing announces a subscription).
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  test('behavior: quit() ends the failover detector connections to the sentinels too (else a process does not exit)', async () => {
    const group = await startGroup()
    const client = createRedisClient(group.url)
    await client.ping()
    await until(async () => (await detectorConnections(group)) === 3, 'the detector to subscribe on the 3 sentinels')
    await client.quit()
    await until(async () => (await detectorConnections(group)) === 0, 'the detector connections to end')
  }, 30_000)

  test('behavior: a failover the sentinels are asked for (the old primary demoted, not dead): writes and a blocked reader go on, on the new primary', async () => {
    const group = await startGroup()
    const writer = createRedisClient(group.url, { maxRetriesPerRequest: null })
    const reader = createRedisClient(group.url, { maxRetriesPerRequest: null })
    for (const c of [writer, reader]) c.on('error', () => undefined)
    const failures: string[] = []
    let writing = true
    let acknowledged = 0
    const writes = (async () => {
      while (writing) {
        try {
          await writer.incr('demoted:writes')
          acknowledged++
        } catch (error) {
          failures.push((error as Error).message)
        }
      }
    })()
    try {
      // Blocked on the old primary through the failover (as a BullMQ worker waits for jobs).
      const popped = reader.blpop('demoted:list', 0)
      const started = performance.now()
      const { promotedUrl, failoverMs } = await group.failOver()
      const promoted = createRedisClient(promotedUrl)
      try {
        await promoted.rpush('demoted:list', 'after')
        expect(await popped).toEqual(['demoted:list', 'after'])
        writing = false
        await writes
        expect(failures).toEqual([])
        expect(acknowledged).toBeGreaterThan(0)
        // Figures, not assertions: how long the writer took to be on the new primary, and how many
        // acknowledged increments the promoted primary lacks (written to the old one after the promotion).
        const final = Number(await promoted.get('demoted:writes'))
        process.stdout.write(
          `sentinel failover asked for: promoted after ${failoverMs} ms, writer and reader on it after ${Math.round(performance.now() - started)} ms; ${acknowledged} increments acknowledged, ${final} on the promoted primary\n`,
        )
        // The writer is on the promoted primary now.
        const before = Number(await promoted.get('demoted:writes'))
        await writer.incr('demoted:writes')
        expect(Number(await promoted.get('demoted:writes'))).toBe(before + 1)
      } finally {
        promoted.disconnect()
      }
    } finally {
      writing = false
      await writes
      writer.disconnect()
      reader.disconnect()
    }
  }, 40_000)

  test('behavior: a client of a redis+sentinel URL follows the promotion without being made again; what was written before is there', async () => {
    const group = await startGroup()
    const client = createRedisClient(group.url, { maxRetriesPerRequest: null })
    client.on('error', () => undefined)
    try {
      await client.set('before', '1')
      // Note: replication is asynchronous; WAIT makes sure the replica has it before the crash.
      expect(await client.wait(1, 5_000)).toBe(1)
      const { promotedUrl, failoverMs } = await group.killPrimary()
      process.stdout.write(`sentinel failover: promoted ${promotedUrl} after ${failoverMs} ms\n`)
      // Sent while the client is reconnecting: it waits (maxRetriesPerRequest null) and lands on the new primary.
      await client.incr('after')
      expect(await client.mget('before', 'after')).toEqual(['1', '1'])
      const direct = createRedisClient(promotedUrl)
      try {
        expect(await direct.mget('before', 'after')).toEqual(['1', '1'])
      } finally {
        direct.disconnect()
      }
    } finally {
      client.disconnect()
    }
  }, 40_000)
})
