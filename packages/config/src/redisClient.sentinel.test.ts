import { type SentinelGroup, sentinelTools, startSentinelGroup } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test } from 'vitest'
import { createRedisClient } from './redisClient.js'

// The factory's clients under Redis Sentinel, against real processes: a primary, a replica and
// three sentinels of packages/testing; the primary is SIGKILLed and the replica promoted.

const tools = sentinelTools()

describe.skipIf(tools === undefined)('createRedisClient under Sentinel', () => {
  let group: SentinelGroup | undefined
  afterAll(() => group?.close())

  /** Connections subscribed to +switch-master on the sentinels (the clients' failover detectors). */
  async function detectorConnections(): Promise<number> {
    let n = 0
    for (const port of group!.sentinelPorts) {
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
    group ??= await startSentinelGroup(tools!)
    const client = createRedisClient(group.url)
    await client.ping()
    await until(async () => (await detectorConnections()) === 3, 'the detector to subscribe on the 3 sentinels')
    await client.quit()
    await until(async () => (await detectorConnections()) === 0, 'the detector connections to end')
  }, 30_000)

  test('behavior: a client of a redis+sentinel URL follows the promotion without being made again; what was written before is there', async () => {
    group ??= await startSentinelGroup(tools!)
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
