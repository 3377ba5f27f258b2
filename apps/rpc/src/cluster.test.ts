import { describeWithFixtures } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { childPids, type RpcProcess, sleep, startLoad, startRpcProcess } from './_test/rpcProcess.js'
import { mainnetBlocksFixture } from './_test/seed.js'
import { createTestEnv, type TestEnv } from './_test/server.js'

const call = '{"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockHashAndIndex","params":["0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b","0x0"]}'

describeWithFixtures([mainnetBlocksFixture], 'uncle-rpc rpc --workers', () => {
  let env: TestEnv
  let rpc: RpcProcess | undefined

  beforeAll(async () => {
    env = await createTestEnv()
  })
  afterAll(async () => {
    await rpc?.cli.stop('SIGKILL')
    for (const pid of rpc ? childPids(rpc.pid) : []) process.kill(pid, 'SIGKILL')
    await env?.close()
  })

  test('behavior: a SIGKILLed worker is replaced while the other keeps serving; SIGTERM then stops all with 0', async () => {
    rpc = await startRpcProcess(env.database.url, ['--workers', '2', '--rate-limits', 'off'])
    const workers = childPids(rpc.pid)
    expect(workers).toHaveLength(2)
    const load = startLoad(`${rpc.base}/v3/${env.key}`, call, { concurrency: 8 })
    await sleep(700)
    const beforeKill = load.now().answered
    process.kill(workers[0]!, 'SIGKILL')
    const killedAt = Date.now()
    // A new worker takes the dead one's place.
    await rpc.cli.waitFor(/a new rpc worker is serving/, 30_000)
    expect(childPids(rpc.pid).filter((p) => p !== workers[0])).toHaveLength(2)
    const replacedMs = Date.now() - killedAt
    await sleep(700)
    const mid = { ...load.now() }
    await sleep(700)
    const result = await load.stop()
    // Still serving after the replacement: answers kept coming, nothing failed after it.
    expect(result.answered).toBeGreaterThan(mid.answered)
    expect(result.failed).toBe(mid.failed)
    expect(result.answered).toBeGreaterThan(beforeKill)
    expect(rpc.cli.stderr()).toMatch(/an rpc worker died; starting a new one/)
    process.stdout.write(
      `cluster: answered ${result.answered}, failed ${result.failed} (${JSON.stringify([...result.errors])}) while a worker was killed and replaced in ${replacedMs} ms\n`,
    )
    const code = await rpc.cli.stop('SIGTERM')
    expect(code, rpc.cli.stderr().slice(-3000)).toBe(0)
    rpc = undefined
  }, 60_000)

  test('behavior: a worker stopped by its own SIGTERM (exit 0) is replaced and logged as a clean stop, not an error', async () => {
    rpc = await startRpcProcess(env.database.url, ['--workers', '2', '--rate-limits', 'off'])
    const workers = childPids(rpc.pid)
    expect(workers).toHaveLength(2)
    process.kill(workers[0]!, 'SIGTERM')
    await rpc.cli.waitFor(/a new rpc worker is serving/, 30_000)
    const exitLine = rpc.cli
      .stderr()
      .split('\n')
      .find((line) => line.includes(`"worker_pid":${workers[0]}`) && line.includes('starting a new one'))
    expect(exitLine).toBeDefined()
    expect(JSON.parse(exitLine!)).toMatchObject({ level: 40, msg: 'an rpc worker stopped cleanly; starting a new one', code: 0 })
    expect(await rpc.cli.stop('SIGTERM')).toBe(0)
    rpc = undefined
  }, 60_000)
})
