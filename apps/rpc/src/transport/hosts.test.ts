import { describeWithFixtures } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { mainnetBlocksFixture } from '../_test/seed.js'
import { createTestEnv, openWs, rawRequest, startTestServer, type TestEnv, type TestServer } from '../_test/server.js'

// Each network's own address, as operators deploy it behind DNS names: the same answer over the
// fast path, node:http (a chunked body) and WebSocket, since one resolver decides for all three.

const H = '0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b'
const uncleCall = `{"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockHashAndIndex","params":["${H}","0x0"]}`
const chainIdCall = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
const uncleHash = '0x932bdf904546a2287a2c9b2ede37925f698a7657484b172d4e5184f80bdd464d'

type Answer = { status: number; body: string }

/** The same request three ways: fast path (Content-Length), node:http (chunked), WebSocket (status 101 when upgraded). */
async function threeWays(server: TestServer, key: string, host: string, body: string): Promise<Answer[]> {
  const url = `${server.base}/v3/${key}`
  const fast = await rawRequest(url, { headers: { 'content-type': 'application/json', host }, body })
  const chunked = await rawRequest(url, { headers: { 'content-type': 'application/json', host, 'transfer-encoding': 'chunked' }, body })
  let ws: Answer
  try {
    const client = await openWs(`${server.wsBase}/ws/v3/${key}`, { headers: { host } })
    ws = { status: 101, body: await client.send(body) }
    await client.close()
  } catch (error) {
    const refused = error as { status?: number; body?: string }
    ws = { status: refused.status ?? 0, body: refused.body ?? String(error) }
  }
  return [
    { status: fast.status, body: fast.body },
    { status: chunked.status, body: chunked.body },
    ws,
  ]
}

describeWithFixtures([mainnetBlocksFixture], 'network addresses', () => {
  let env: TestEnv
  beforeAll(async () => {
    env = await createTestEnv()
  })
  afterAll(async () => {
    await env?.close()
  })

  test('behavior: one network, Host: rpc.example.com: /v3/<KEY> and /ws/v3/<KEY> answer the uncle', async () => {
    const server = await startTestServer(env.db)
    try {
      for (const host of ['rpc.example.com', 'api.example.com:443', 'example.com', 'uncles.mycompany.com']) {
        const answers = await threeWays(server, env.key, host, uncleCall)
        expect(answers.map((a) => a.status), host).toEqual([200, 200, 101])
        for (const answer of answers) expect((JSON.parse(answer.body) as { result: { hash: string } }).result.hash).toBe(uncleHash)
      }
    } finally {
      await server.rpc.close()
    }
  })

  for (const fastPath of [true, false])
    test(`behavior: two networks with hosts: each host answers its own network, an unconfigured host gets the 404 listing the addresses (fast path ${fastPath ? 'on' : 'off'})`, async () => {
      const server = await startTestServer(env.db, {
        fastPath,
        networks: [
          { name: 'mainnet', chainId: 1, confirmations: 0, hosts: ['uncles.mycompany.com', 'mainnet.rpc.example.com'] },
          { name: 'sepolia', chainId: 11155111, confirmations: 0, hosts: ['sepolia.rpc.example.com'] },
        ],
      })
      try {
        const chainIds = async (host: string) => (await threeWays(server, env.key, host, chainIdCall)).map((a) => `${a.status} ${a.body}`)
        const answer = (id: string) => `{"jsonrpc":"2.0","id":1,"result":"${id}"}`
        expect(await chainIds('Uncles.MyCompany.com:8545')).toEqual([`200 ${answer('0x1')}`, `200 ${answer('0x1')}`, `101 ${answer('0x1')}`])
        expect(await chainIds('mainnet.rpc.example.com')).toEqual([`200 ${answer('0x1')}`, `200 ${answer('0x1')}`, `101 ${answer('0x1')}`])
        expect(await chainIds('sepolia.rpc.example.com')).toEqual([`200 ${answer('0xaa36a7')}`, `200 ${answer('0xaa36a7')}`, `101 ${answer('0xaa36a7')}`])
        // The uncle is mainnet's: its host finds it, sepolia's answers null from sepolia's (empty) index.
        const [mainnetUncle] = await threeWays(server, env.key, 'mainnet.rpc.example.com', uncleCall)
        expect(mainnetUncle?.body).toContain(uncleHash)
        const [sepoliaUncle] = await threeWays(server, env.key, 'sepolia.rpc.example.com', uncleCall)
        expect(sepoliaUncle?.body).toBe('{"jsonrpc":"2.0","id":1,"result":null}')
        const message =
          'no network is served at host "127.0.0.1"; addresses: uncles.mycompany.com (mainnet), mainnet.rpc.example.com (mainnet), sepolia.rpc.example.com (sepolia), or /<network>/v3/<KEY> on any host; known networks: mainnet, sepolia'
        for (const refused of await threeWays(server, env.key, `127.0.0.1:${server.port}`, chainIdCall)) {
          expect(refused.status).toBe(404)
          expect((JSON.parse(refused.body) as { error: { code: number; message: string } }).error).toEqual({ code: -32601, message })
        }
        expect((await threeWays(server, env.key, 'mainnet.example.com', chainIdCall)).map((a) => a.status)).toEqual([404, 404, 404])
      } finally {
        await server.rpc.close()
      }
    })
})
