import { type SentinelGroup, sentinelTools, startSentinelGroup } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test } from 'vitest'
import { createRedisClient } from './redisClient.js'

// The factory's clients under Redis Sentinel, against real processes: a primary, a replica and
// three sentinels of packages/testing; the primary is SIGKILLed and the replica promoted.

const tools = sentinelTools()

describe.skipIf(tools === undefined)('createRedisClient under Sentinel', () => {
  let group: SentinelGroup | undefined
  afterAll(() => group?.close())

  test('behavior: a client of a redis+sentinel URL follows the promotion without being made again; what was written before is there', async () => {
    group = await startSentinelGroup(tools!)
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
