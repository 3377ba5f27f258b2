import { createLogger } from '@uncle-rpc/config'
import { type CliProcess, spawnCli } from '@uncle-rpc/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTcpProxy, type TcpProxy } from '../_test/tcpProxy.js'
import { createPartner, PartnerUnavailableError } from './partner.js'

const lines: string[] = []
const logger = createLogger({ level: 'info', name: 'partner-test', destination: { write: (line: string) => void lines.push(line) } })
const call = '{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}'

describe('createPartner', () => {
  let node: CliProcess
  let proxy: TcpProxy

  beforeAll(async () => {
    node = spawnCli(['sample-node', '--port', '0', '--synthetic', '64'])
    const url = new URL((await node.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1]!)
    proxy = await createTcpProxy({ host: url.hostname, port: Number(url.port) })
  }, 90_000)

  afterAll(async () => {
    await proxy?.close()
    await node?.stop()
  })

  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => 'answered',
      (error: unknown) => (error instanceof PartnerUnavailableError ? error.reason : String(error)),
    )

  test('default: the body comes back exactly as the partner sent it', async () => {
    const partner = createPartner({ logger }, { url: `http://127.0.0.1:${proxy.port}/`, name: 'mainnet' })
    expect((await partner.send(call)).text).toBe('{"jsonrpc":"2.0","id":7,"result":"0x3f"}\n')
    expect(partner.state).toBe('closed')
  })

  test('behavior: opens after N failures, fails fast while open, probes after the cooldown, closes on success', async () => {
    const partner = createPartner({ logger }, { url: `http://127.0.0.1:${proxy.port}/`, name: 'mainnet', timeoutMs: 200, failureThreshold: 3, cooldownMs: 300 })
    const before = lines.length
    proxy.hang()
    expect(await Promise.all([1, 2, 3].map(() => failure(partner.send(call))))).toEqual(['timeout', 'timeout', 'timeout'])
    expect(partner.state).toBe('open')
    const started = performance.now()
    expect(await failure(partner.send(call))).toBe('circuit open')
    expect(performance.now() - started).toBeLessThan(20)

    // Still down after the cooldown: the one probe fails and the circuit opens again.
    await proxy.cut()
    await new Promise((resolve) => setTimeout(resolve, 350))
    const [probe, other] = await Promise.all([failure(partner.send(call)), failure(partner.send(call))])
    expect([probe, other]).toEqual(['network', 'circuit open'])
    expect(partner.state).toBe('open')

    await proxy.restore()
    await new Promise((resolve) => setTimeout(resolve, 350))
    expect((await partner.send(call)).text).toBe('{"jsonrpc":"2.0","id":7,"result":"0x3f"}\n')
    expect(partner.state).toBe('closed')
    const changes = lines.slice(before).map((line) => JSON.parse(line) as { msg: string; partner: string })
    expect(changes.map((c) => c.msg)).toEqual([
      'failover partner circuit open',
      'failover partner circuit half-open: probing',
      'failover partner circuit open',
      'failover partner circuit half-open: probing',
      'failover partner circuit closed: partner answers again',
    ])
    expect(changes[0]?.partner).toBe(`127.0.0.1:${proxy.port}`)
  })

  test('behavior: a JSON-RPC error is an answer (passed on), not a failure', async () => {
    const partner = createPartner({ logger }, { url: `http://127.0.0.1:${proxy.port}/`, name: 'mainnet', failureThreshold: 1 })
    expect((await partner.send('{"jsonrpc":"2.0","id":1,"method":"nope"}')).text).toContain('"code":-32601')
    expect(partner.state).toBe('closed')
  })
})
