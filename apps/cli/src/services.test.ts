import { parseEnv } from '@uncle-rpc/config'
import { freePort, type SentinelGroup, sentinelTools, startSentinelGroup } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test } from 'vitest'
import { checkServices } from './services.js'

// The check `uncle-rpc start` makes before anything else, with REDIS_URL under Redis Sentinel.

const tools = sentinelTools()

describe.skipIf(tools === undefined)('checkServices with redis+sentinel://', () => {
  let group: SentinelGroup | undefined
  afterAll(() => group?.close())

  test('default: sentinels that name a primary: no problem', async () => {
    group = await startSentinelGroup(tools!)
    expect(await checkServices(parseEnv({ REDIS_URL: group.url }))).toEqual([])
  }, 30_000)

  test('error: no sentinel answers: says which master and sentinels, not the password', async () => {
    const [a, b] = [await freePort(), await freePort()]
    const problems = await checkServices(parseEnv({ REDIS_URL: `redis+sentinel://:hunter2@127.0.0.1:${a},127.0.0.1:${b}/uncle` }))
    expect(problems).toHaveLength(1)
    expect(problems[0]).toContain(`Redis is not answering at master "uncle" via sentinels 127.0.0.1:${a},127.0.0.1:${b} (`)
    expect(problems[0]).toContain('Check that the sentinels run and monitor "uncle"')
    expect(problems[0]).not.toContain('hunter2')
  }, 30_000)
})
