import { Agent, type IncomingHttpHeaders, request } from 'node:http'
import { parseMetrics, sumSamples } from '@uncle-rpc/metrics'
import { describeWithFixtures, spawnCli } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived } from './_test/seed.js'
import { createTestEnv, openWs, rawRequest, type TestEnv } from './_test/server.js'

// Load shedding in a real `uncle-rpc rpc` process: the process is stopped (SIGSTOP) while
// requests arrive, so that on SIGCONT its event loop is a second behind; those requests are shed
// with 503 and Retry-After; the next ones are answered. A WebSocket message is never shed: the
// socket's own backpressure paces it (a client that keeps its connection is not asked to retry).

type Answer = { status: number; headers: IncomingHttpHeaders; body: string }

/** POSTs `body` over `agent` (its keep-alive connections). */
function postOn(agent: Agent, url: string, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'uncle-rpc rpc --max-event-loop-lag-ms', () => {
  let env: TestEnv

  beforeAll(async () => {
    env = await createTestEnv()
  })

  afterAll(async () => {
    await env?.close()
  })

  test('behavior: HTTP requests read while the event loop is behind are shed with 503, Retry-After and -32005, a WebSocket message is answered; then all answered again', async () => {
    const rpc = spawnCli(['rpc', '--port', '0', '--metrics-port', '0', '--rate-limits', 'off', '--max-event-loop-lag-ms', '200'], { env: { DATABASE_URL: env.database.url } })
    try {
      const base = (await rpc.waitFor(/rpc listening on (http:\/\/\S+?)\/v3\//, 60_000))[1]!
      const metrics = (await rpc.waitFor(/rpc metrics on (http:\/\/\S+)/, 60_000))[1]!
      const uncle = derivedUncles()[0]!
      const call = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"eth_getUncleByBlockHashAndIndex","params":["${uncle.blockHash}","${uncle.index}"]}`
      const url = `${base}/v3/${env.key}`
      // Note: ten connections opened beforehand, so the requests sent while stopped are all read in one turn after it.
      const agent = new Agent({ keepAlive: true, maxSockets: 10 })
      const burst = (from: number) => Promise.all(Array.from({ length: 10 }, (_, i) => postOn(agent, url, call(from + i))))
      expect((await burst(100)).map((a) => a.status)).toEqual(Array(10).fill(200))
      const ws = await openWs(`${base.replace('http', 'ws')}/ws/v3/${env.key}`)
      expect(await ws.send(call(2))).toContain('"result":{')

      const pid = rpc.child.pid!
      process.kill(pid, 'SIGSTOP')
      let answers: Promise<Answer[]>
      let wsAnswer: Promise<string>
      try {
        answers = burst(10)
        wsAnswer = ws.send(call(7))
        // Note: the requests reach the stopped process's socket buffers; a second later it is that far behind.
        await new Promise((resolve) => setTimeout(resolve, 1000))
      } finally {
        process.kill(pid, 'SIGCONT')
      }
      for (const answer of await answers) {
        expect(answer.status).toBe(503)
        expect(answer.headers['retry-after']).toBe('1')
        expect(JSON.parse(answer.body)).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32005, message: 'server busy: request shed, retry later', data: { backoff_seconds: 1 } },
        })
      }
      expect(JSON.parse(await wsAnswer)).toMatchObject({ id: 7, result: { hash: uncle.result.hash } })

      // Caught up: answered again, on the same WebSocket too.
      // Note: the lag sample of the turn after the stop stays fresh for one 20 ms period: poll briefly.
      let again = await rawRequest(url, { body: call(3) })
      for (let i = 0; i < 20 && again.status === 503; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        again = await rawRequest(url, { body: call(3) })
      }
      expect(again.status).toBe(200)
      expect(again.body).toContain(`"hash":"${uncle.result.hash as string}"`)
      expect(await ws.send(call(4))).toContain('"result":{')
      await ws.close()
      agent.destroy()
      const samples = parseMetrics(await (await fetch(metrics)).text())
      expect(sumSamples(samples, 'uncle_rpc_shed_total', { transport: 'http' })).toBeGreaterThanOrEqual(10)
      expect(sumSamples(samples, 'uncle_rpc_shed_total', { transport: 'ws' })).toBe(0)
    } finally {
      await rpc.stop()
    }
  })
})
