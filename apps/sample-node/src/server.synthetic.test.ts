import { type Hex, hashHeader, headerFromRpc, verifyBlock } from '@uncle-rpc/chain'
import { sleep } from '@uncle-rpc/process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { call, post, type SpawnedNode, spawnSampleNode } from './_test/spawnSampleNode.js'

// Real node processes on synthetic chains: injected faults, rate limiting, a live chain with
// reorgs, and a tampered block.

type RpcAnswer = { id: number; result?: unknown; error?: { code: number; message: string } }

describe('sample-node --synthetic (real processes)', () => {
  let faulty: SpawnedNode
  let limited: SpawnedNode
  let live: SpawnedNode

  beforeAll(async () => {
    ;[faulty, limited, live] = await Promise.all([
      spawnSampleNode([
        '--port',
        '0',
        '--synthetic',
        '3000',
        '--seed',
        '4',
        '--fault-error-rate',
        '0.3',
        '--fault-drop-rate',
        '0.1',
        '--fault-latency-ms',
        '0-5',
      ]),
      spawnSampleNode(['--port', '0', '--synthetic', '1000', '--fault-rate-limit', '20']),
      spawnSampleNode([
        '--port',
        '0',
        '--synthetic',
        '2000',
        '--seed',
        '9',
        '--chain-id',
        '5',
        '--block-time',
        '40',
        '--reorg-rate',
        '0.8',
        '--reorg-depth',
        '3',
        '--tamper-block',
        '100',
      ]),
    ])
  })
  afterAll(async () => {
    const codes = await Promise.all([faulty, limited, live].map((node) => node?.stop()))
    expect(codes).toEqual([0, 0, 0])
  })

  test('default: the listening line names the chain', () => {
    expect(faulty.line).toMatch(
      /^sample-node listening on http:\/\/127\.0\.0\.1:\d+ \(chain: synthetic 3000 blocks, seed 4, London at 12965000, chainId 1337\)$/,
    )
    expect(live.line).toContain('chainId 5)')
  })

  test('behavior: --fault-error-rate and --fault-drop-rate produce 5xx, -32000 and dropped connections', async () => {
    const seen = { ok: 0, rpcError: 0, dropped: 0, status: new Map<number, number>() }
    for (let i = 0; i < 150; i++) {
      try {
        const answer = await post(faulty.url, call(i, 'eth_blockNumber'))
        seen.status.set(answer.status, (seen.status.get(answer.status) ?? 0) + 1)
        if (answer.status !== 200) continue
        const json = JSON.parse(answer.text) as RpcAnswer
        if (json.error) {
          expect(json.error.code).toBe(-32000)
          seen.rpcError++
        } else {
          expect(json).toEqual({ jsonrpc: '2.0', id: i, result: '0xbb7' })
          seen.ok++
        }
      } catch {
        // Note: a destroyed connection (before or after the headers) fails the fetch.
        seen.dropped++
      }
    }
    expect(seen.ok).toBeGreaterThan(60)
    expect(seen.rpcError).toBeGreaterThan(0)
    expect(seen.dropped).toBeGreaterThan(0)
    for (const status of [500, 502, 503]) expect(seen.status.get(status) ?? 0).toBeGreaterThan(0)
  })

  test('behavior: --fault-rate-limit answers 429 with Retry-After above the rate', async () => {
    await sleep(1000)
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(limited.url, call(i, 'eth_chainId'))))
    const limitedAnswers = answers.filter((a) => a.status === 429)
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(20)
    expect(limitedAnswers.length).toBeGreaterThan(0)
    for (const answer of limitedAnswers) expect(answer.headers.get('retry-after')).toBe('1')
    await sleep(1100)
    expect((await post(limited.url, call(1, 'eth_chainId'))).text).toBe('{"jsonrpc":"2.0","id":1,"result":"0x539"}\n')
  })

  test('behavior: --block-time grows the chain, reorgs replace blocks that stay answerable by hash', async () => {
    const recent = async (count: number) => {
      const head = Number(JSON.parse((await post(live.url, call(1, 'eth_blockNumber'))).text).result)
      const answer = await post(
        live.url,
        Array.from({ length: count }, (_, i) =>
          call(head - count + 1 + i, 'eth_getBlockByNumber', [`0x${(head - count + 1 + i).toString(16)}`, false]),
        ),
      )
      return (JSON.parse(answer.text) as RpcAnswer[]).map((a) => a.result as Record<string, unknown>)
    }
    // Note: reorgs are random and timers slow down on a loaded machine, so sample until one
    // has replaced a block seen before (at rate 0.8 this takes one or two rounds).
    let before = await recent(10)
    let after = before
    let replaced: Record<string, unknown>[] = []
    for (let round = 0; round < 50 && replaced.length === 0; round++) {
      before = await recent(10)
      await sleep(300)
      after = await recent(40)
      const byNumber = new Map(after.map((b) => [b.number, b.hash]))
      replaced = before.filter((b) => byNumber.has(b.number) && byNumber.get(b.number) !== b.hash)
    }
    expect(Number(after.at(-1)?.number)).toBeGreaterThan(Number(before.at(-1)?.number))
    // The chain verifies over RPC as an indexer would, uncles included.
    for (let i = 1; i < after.length; i++) expect(after[i]?.parentHash).toBe(after[i - 1]?.hash)
    for (const block of after.slice(-10)) {
      const uncles = (block.uncles as Hex[]).map(async (_, index) => {
        const answer = await post(live.url, call(1, 'eth_getUncleByBlockHashAndIndex', [block.hash, `0x${index.toString(16)}`]))
        return headerFromRpc((JSON.parse(answer.text) as RpcAnswer).result)
      })
      verifyBlock({ ...headerFromRpc(block), uncles: block.uncles as Hex[] }, await Promise.all(uncles))
    }
    expect(replaced.length).toBeGreaterThan(0)
    for (const old of replaced) {
      const answer = await post(live.url, call(1, 'eth_getBlockByHash', [old.hash, false]))
      expect((JSON.parse(answer.text) as RpcAnswer).result).toEqual(old)
    }
  })

  test('behavior: --tamper-block serves a block whose header does not hash to its hash', async () => {
    const answer = await post(live.url, [
      call(1, 'eth_getBlockByNumber', ['0x64', false]),
      call(2, 'eth_getBlockByNumber', ['0x65', false]),
    ])
    const [tampered, next] = (JSON.parse(answer.text) as RpcAnswer[]).map((a) => headerFromRpc(a.result))
    expect(hashHeader(tampered as ReturnType<typeof headerFromRpc>)).not.toBe(tampered?.hash)
    expect(next?.parentHash).toBe(tampered?.hash)
    expect(hashHeader(next as ReturnType<typeof headerFromRpc>)).toBe(next?.hash)
    const byHash = await post(live.url, call(3, 'eth_getBlockByHash', [tampered?.hash, false]))
    expect(headerFromRpc((JSON.parse(byHash.text) as RpcAnswer).result).stateRoot).toBe(tampered?.stateRoot)
  })
})
