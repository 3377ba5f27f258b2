import { afterAll, beforeAll, expect, test } from 'vitest'
import { createPublicClient, http, webSocket } from 'viem'
import { describeWithFixtures } from '@uncle-rpc/testing'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived } from './_test/seed.js'
import { createTestEnv, startTestServer, type TestEnv, type TestServer } from './_test/server.js'

// A real client library against the server: viem over HTTP and WebSocket, as a wallet or tool
// would use it (chain id first, then the method by its raw request).

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'viem client', () => {
  let env: TestEnv
  let server: TestServer

  beforeAll(async () => {
    env = await createTestEnv()
    server = await startTestServer(env.db)
  })

  afterAll(async () => {
    await server.rpc.close()
    await env.close()
  })

  for (const transport of ['http', 'webSocket'] as const)
    test(`default: getChainId, net_version and eth_getUncleByBlockHashAndIndex over ${transport}`, async () => {
      const client = createPublicClient({
        transport: transport === 'http' ? http(`${server.base}/v3/${env.key}`) : webSocket(`${server.wsBase}/ws/v3/${env.key}`),
      })
      try {
        expect(await client.getChainId()).toBe(1)
        expect(await client.request({ method: 'net_version' })).toBe('1')
        const known = derivedUncles()[7] as ReturnType<typeof derivedUncles>[number]
        const uncle = await client.request({ method: 'eth_getUncleByBlockHashAndIndex', params: [known.blockHash, known.index] })
        expect(uncle).toEqual({ ...known.result, totalDifficulty: null })
        const none = await client.request({ method: 'eth_getUncleByBlockHashAndIndex', params: [`0x${'ab'.repeat(32)}`, '0x0'] })
        expect(none).toBeNull()
        await expect(client.request({ method: 'eth_chainId', params: [1] } as never)).rejects.toThrow(/too many arguments, want at most 0/)
      } finally {
        // Note: viem keeps its WebSocket open (shared per URL) until closed.
        const ws = client.transport as { getRpcClient?: () => Promise<{ close(): void }> }
        ;(await ws.getRpcClient?.())?.close()
      }
    })
})
