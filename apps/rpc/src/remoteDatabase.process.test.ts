import { parseMetrics, sumSamples } from '@uncle-rpc/metrics'
import { createTcpProxy, describeWithFixtures, type TcpProxy } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived } from './_test/seed.js'
import { startRpcProcess, sleep } from './_test/rpcProcess.js'
import { createTestEnv, rawRequest, type TestEnv } from './_test/server.js'

// A real `uncle-rpc rpc` process whose database is 25 ms away in each direction (a TCP delay
// proxy), with a pool of two: the cold path's rate is bound by the round trip, not by the pool.
// Asserted by what it does, not by a time: with at most one statement per connection in flight,
// the misses that arrive meanwhile share the next statement, so it sends far fewer statements than
// event-loop turns with misses (the deadline is raised so that a loaded machine does not decide).

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'uncle-rpc rpc with a database 25 ms away', () => {
  let env: TestEnv
  let proxy: TcpProxy

  beforeAll(async () => {
    env = await createTestEnv()
    const url = new URL(env.database.url)
    proxy = await createTcpProxy({ host: url.hostname, port: Number(url.port || 5432) }, { delayMs: 25 })
  })

  afterAll(async () => {
    await proxy?.close()
    await env?.close()
  })

  test('behavior: a burst of misses spread over many event-loop turns is answered by a pool of two, the misses of many turns sharing each statement', async () => {
    const url = new URL(env.database.url)
    url.hostname = '127.0.0.1'
    url.port = String(proxy.port)
    const rpc = await startRpcProcess(url.toString(), ['--db-pool', '2', '--cache-entries', '0', '--rate-limits', 'off', '--db-deadline-ms', '3000', '--metrics-port', '0'])
    const metrics = (await rpc.cli.waitFor(/rpc metrics on (http:\/\/\S+)/, 30_000))[1]!
    try {
      const uncles = derivedUncles().slice(0, 400)
      const call = (i: number) =>
        `{"jsonrpc":"2.0","id":${i},"method":"eth_getUncleByBlockHashAndIndex","params":["${uncles[i]!.blockHash}","${uncles[i]!.index}"]}`
      // Note: 400 distinct known uncles, 8 every 10 ms: far more than one statement per round trip
      // on each of two connections (2 / 50 ms = 40 statements a second) could answer one by one.
      const answers: Promise<{ status: number; body: string }>[] = []
      for (let i = 0; i < uncles.length; i++) {
        answers.push(rawRequest(`${rpc.base}/v3/${env.key}`, { body: call(i) }))
        if (i % 8 === 7) await sleep(10)
      }
      const settled = await Promise.all(answers)
      const failed = settled.filter((a) => a.status !== 200 || !a.body.includes(`"hash":"`))
      expect(failed.length, failed[0]?.body).toBe(0)
      for (const [i, answer] of settled.entries()) expect(answer.body).toContain(`"hash":"${uncles[i]!.result.hash as string}"`)
      // 50 turns of 8 misses each: one statement per turn (a statement per flush, waiting for a
      // connection) would be 50; two connections of 50 ms round trips carry them in far fewer.
      const samples = parseMetrics(await (await fetch(metrics)).text())
      const statements = sumSamples(samples, 'uncle_rpc_db_read_duration_seconds_count', { result: 'ok' })
      expect(sumSamples(samples, 'uncle_rpc_db_read_lookups_sum')).toBe(400)
      expect(statements).toBeLessThan(35)
    } finally {
      await rpc.cli.stop()
    }
  })
})
