import { toQuantity } from '@uncle-rpc/chain'
import { createLogger } from '@uncle-rpc/config'
import { createDb, type Db } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { openTestDatabase, type OpenTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, describeWithFixtures, fixturePath, spawnCli } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type DerivedUncle, derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived, seedMainnetUncles } from '../_test/seed.js'
import { rawRequest } from '../_test/server.js'
import { createRpcMetrics, type RpcMetrics } from '../metrics.js'
import { createRpcServer, type RpcServer } from '../server.js'

// Verified failover against real partners: the era1 sample node, honest and in its lying modes
// (a real uncle of another block, a tampered uncle field, a tampered block header). Blocks
// 0..4095 are indexed; the others are asked of the partner.

const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'
const call = (id: number, method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id, method, params })
const verificationFailed = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"error":{"code":-32603,"message":"the index cannot answer this call authoritatively and the failover partner's answer failed verification against the chain; try again later","data":{"reason":"verification failed"}}}`

describeWithFixtures([era1, mainnetBlocksFixture, mainnetUnclesDerived], 'verified failover', () => {
  let setup: OpenTestDatabase
  let served: { db: Db; close: () => Promise<void> }
  const nodes: CliProcess[] = []
  const partnerUrls: Record<string, string> = {}
  let rpc: RpcServer
  let metrics: RpcMetrics
  let base: string
  let key: string
  let unindexed: DerivedUncle[]
  let swapped: DerivedUncle
  let tamperedUncle: DerivedUncle
  let tamperedBlock: DerivedUncle

  const post = (network: string, body: string) =>
    rawRequest(`${base}/${network}/v3/${key}`, { headers: { 'content-type': 'application/json', 'enable-failover': 'true' }, body })
  /** The partner's own answer to `body`. */
  const direct = async (network: string, body: string) => (await rawRequest(partnerUrls[network]!, { body })).body
  const verifications = async (network: string, outcome: 'passed' | 'failed') => {
    const text = await metrics.registry.metrics()
    const line = text.split('\n').find((l) => l.startsWith(`uncle_rpc_partner_verifications_total{network="${network}",outcome="${outcome}"}`))
    return line === undefined ? 0 : Number(line.split(' ').at(-1))
  }

  beforeAll(async () => {
    unindexed = derivedUncles().filter((u) => u.blockNumber >= 5000 && u.index === '0x0')
    ;[swapped, tamperedUncle, tamperedBlock] = [unindexed[0]!, unindexed[5]!, unindexed[10]!]
    const partners: [string, string[]][] = [
      ['honest', []],
      ['swapped', ['--swap-uncles', String(swapped.blockNumber)]],
      ['tampered', ['--tamper-uncles', String(tamperedUncle.blockNumber), '--tamper-block', String(tamperedBlock.blockNumber)]],
      ['unverified', ['--swap-uncles', String(swapped.blockNumber)]],
    ]
    for (const [, flags] of partners) nodes.push(spawnCli(['sample-node', '--port', '0', '--chain', fixturePath(era1), ...flags]))
    setup = await openTestDatabase({ max: 2 })
    for (const [name] of partners) await seedMainnetUncles(setup.db, name, 4095)
    key = (await createApiKey(setup.db, { plan: 'growth' })).key
    served = createDb({ url: setup.url, max: 4 })
    for (const [i, [name]] of partners.entries()) partnerUrls[name] = (await nodes[i]!.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1]!
    metrics = createRpcMetrics()
    rpc = createRpcServer(
      { db: served.db, logger: createLogger({ level: 'fatal', name: 'verified-failover-test' }), metrics },
      {
        networks: partners.map(([name]) => ({ name, chainId: 1, confirmations: 0, partnerUrl: partnerUrls[name], verifyPartner: name !== 'unverified' })),
        cacheEntries: 0,
        dbDeadlineMs: 5000,
        partner: { timeoutMs: 5000, failureThreshold: 5, cooldownMs: 60_000 },
        usageFlushMs: 3_600_000,
      },
    )
    base = `http://127.0.0.1:${(await rpc.listen(0, '127.0.0.1')).port}`
  }, 120_000)

  afterAll(async () => {
    await rpc?.close()
    await Promise.all([served?.close(), ...nodes.map((node) => node.stop())])
    await setup?.close()
  })

  test('default: an honest partner’s answers pass byte for byte, for every method of the family; the verification metric moves', async () => {
    const passedBefore = await verifications('honest', 'passed')
    const calls = unindexed.slice(0, 12).flatMap((u, k) => [
      call(k, 'eth_getUncleByBlockHashAndIndex', [u.blockHash, '0x0']),
      call(k, 'eth_getUncleByBlockHashAndIndex', [u.blockHash, '0x1']),
      call(k, 'eth_getUncleCountByBlockHash', [u.blockHash]),
      call(k, 'eth_getUncleCountByBlockNumber', [toQuantity(u.blockNumber)]),
      call(k, 'eth_getUncleByBlockNumberAndIndex', [toQuantity(u.blockNumber), '0x0']),
    ])
    for (const text of calls) {
      const answer = await post('honest', text)
      // Note: the sample node ends its bodies with a newline, as geth ≤ v1.17.3; the answer object is the same bytes.
      expect(answer.body).toBe((await direct('honest', text)).trimEnd())
      expect(answer.headers['x-failover']).toBe('partner')
    }
    expect(await verifications('honest', 'passed')).toBe(passedBefore + calls.length)
    expect(await verifications('honest', 'failed')).toBe(0)
    // A null from the partner stays null (unknown hash, and a height past the partner's head).
    const nulls = [call(1, 'eth_getUncleByBlockHashAndIndex', [`0x${'ab'.repeat(32)}`, '0x0']), call(2, 'eth_getUncleCountByBlockNumber', ['0x100000'])]
    expect((await post('honest', nulls[0]!)).body).toBe('{"jsonrpc":"2.0","id":1,"result":null}')
    expect((await post('honest', nulls[1]!)).body).toBe('{"jsonrpc":"2.0","id":2,"result":null}')
    expect(rpc.partners.get('honest')?.state).toBe('closed')
  })

  test('error: a real uncle of another block, a tampered uncle field or a tampered header: the verification error, never the data', async () => {
    const cases: [string, DerivedUncle][] = [
      ['swapped', swapped],
      ['tampered', tamperedUncle],
      ['tampered', tamperedBlock],
    ]
    for (const [network, u] of cases) {
      const failedBefore = await verifications(network, 'failed')
      const lie = await direct(network, call(1, 'eth_getUncleByBlockHashAndIndex', [u.blockHash, '0x0']))
      // The partner does lie: its direct answer is not geth's.
      if (network === 'swapped' || u === tamperedUncle) expect(JSON.parse(lie)).not.toEqual({ jsonrpc: '2.0', id: 1, result: u.result })
      for (const text of [
        call(1, 'eth_getUncleByBlockHashAndIndex', [u.blockHash, '0x0']),
        call(1, 'eth_getUncleByBlockNumberAndIndex', [toQuantity(u.blockNumber), '0x0']),
      ]) {
        const answer = await post(network, text)
        expect(answer.body).toBe(verificationFailed(1))
        expect(answer.headers['x-failover']).toBeUndefined()
      }
      expect(await verifications(network, 'failed')).toBe(failedBefore + 2)
    }
    // A batch: the lying entry fails alone, an honest one of the same partner passes.
    const good = unindexed[20]!
    const batch = await post('swapped', `[${call(1, 'eth_getUncleByBlockHashAndIndex', [swapped.blockHash, '0x0'])},${call(2, 'eth_getUncleByBlockHashAndIndex', [good.blockHash, '0x0'])}]`)
    expect(batch.body).toBe(`[${verificationFailed(1)},${(await direct('swapped', call(2, 'eth_getUncleByBlockHashAndIndex', [good.blockHash, '0x0']))).trimEnd()}]`)
  })

  test('behavior: the partner’s breaker counts a failed verification as a failure', async () => {
    // Four failed verifications so far (the test above); the fifth opens the circuit.
    expect(rpc.partners.get('tampered')?.state).toBe('closed')
    expect((await post('tampered', call(1, 'eth_getUncleCountByBlockHash', [tamperedBlock.blockHash]))).body).toBe(verificationFailed(1))
    expect(rpc.partners.get('tampered')?.state).toBe('open')
    const answer = await post('tampered', call(1, 'eth_getUncleByBlockHashAndIndex', [unindexed[30]!.blockHash, '0x0']))
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32603, data: { reason: 'circuit open' } } })
  })

  test('behavior: with verifyPartner false the partner’s answer passes unchecked', async () => {
    const text = call(1, 'eth_getUncleByBlockHashAndIndex', [swapped.blockHash, '0x0'])
    const answer = await post('unverified', text)
    expect(answer.body).toBe(await direct('unverified', text))
    expect(await verifications('unverified', 'failed')).toBe(0)
  })
})
