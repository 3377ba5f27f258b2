import { toQuantity } from '@uncle-rpc/chain'
import { describeWithFixtures, readFixtureJson } from '@uncle-rpc/testing'
import { beforeAll, expect, test } from 'vitest'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived } from '../_test/seed.js'
import { partnerProof } from './partnerProof.js'

// The proof of a forwarded call, checked on real mainnet blocks (recorded) and geth's answers for their uncles.

type Block = { number: number; hash: string; header: Record<string, unknown>; uncles: { hash: string }[] }
const answer = (id: number, result: unknown) => ({ jsonrpc: '2.0', id, result })

describeWithFixtures([mainnetBlocksFixture, mainnetUnclesDerived], 'partnerProof', () => {
  let twoUncles: Block
  let oneUncle: Block
  const results = new Map<string, Record<string, unknown>>()
  /** What an honest geth answers to the proof's calls for `block`. */
  const honest = (block: Block) => [
    answer(0, { ...block.header, size: '0x21d', totalDifficulty: '0x1', transactions: [], uncles: block.uncles.map((u) => u.hash) }),
    answer(1, results.get(`${block.hash}/0x0`) ?? null),
    answer(2, results.get(`${block.hash}/0x1`) ?? null),
  ]

  beforeAll(() => {
    const blocks = readFixtureJson<{ blocks: Block[] }>(mainnetBlocksFixture).blocks
    twoUncles = blocks.find((b) => b.uncles.length === 2)!
    oneUncle = blocks.find((b) => b.uncles.length === 1)!
    for (const u of derivedUncles()) results.set(`${u.blockHash}/${u.index}`, u.result)
  })

  test('default: the proof calls, and an honest answer passes as the partner gave it', () => {
    const proof = partnerProof({ method: 'eth_getUncleByBlockHashAndIndex', params: [twoUncles.hash, '0x1'] })!
    expect(proof.calls).toEqual([
      { method: 'eth_getBlockByHash', params: [twoUncles.hash, false] },
      { method: 'eth_getUncleByBlockHashAndIndex', params: [twoUncles.hash, '0x0'] },
      { method: 'eth_getUncleByBlockHashAndIndex', params: [twoUncles.hash, '0x1'] },
    ])
    expect(proof.check(honest(twoUncles))).toEqual({ kind: 'answer', item: { result: results.get(`${twoUncles.hash}/0x1`) } })
    const count = partnerProof({ method: 'eth_getUncleCountByBlockNumber', params: [toQuantity(oneUncle.number)] })!
    expect(count.calls[0]).toEqual({ method: 'eth_getBlockByNumber', params: [toQuantity(oneUncle.number), false] })
    expect(count.check(honest(oneUncle))).toEqual({ kind: 'answer', item: { result: '0x1' } })
    expect(partnerProof({ method: 'eth_getUncleByBlockHashAndIndex', params: [oneUncle.hash, '0x5'] })!.check(honest(oneUncle))).toEqual({ kind: 'answer', item: { result: null } })
    expect(partnerProof({ method: 'eth_chainId', params: [] })).toBeUndefined()
  })

  test('behavior: nulls stay null; a partner error is its answer', () => {
    const proof = partnerProof({ method: 'eth_getUncleCountByBlockHash', params: [twoUncles.hash] })!
    expect(proof.check([answer(0, null), answer(1, null), answer(2, null)])).toEqual({ kind: 'answer', item: { result: null } })
    const error = { code: -32005, message: 'limit exceeded' }
    expect(proof.check([{ jsonrpc: '2.0', id: 0, error }, answer(1, null), answer(2, null)])).toEqual({ kind: 'answer', item: { error } })
  })

  test('error: what a lying or broken partner answers fails, saying why', () => {
    const proof = partnerProof({ method: 'eth_getUncleByBlockHashAndIndex', params: [twoUncles.hash, '0x0'] })!
    const [nephew, u0, u1] = honest(twoUncles) as unknown as [{ result: Record<string, unknown> }, { result: Record<string, unknown> }, { result: Record<string, unknown> }]
    const other = results.get(`${oneUncle.hash}/0x0`)!
    const cases: [unknown[], RegExp][] = [
      [[nephew, answer(1, other), u1], /block lists uncle 0 as 0x[0-9a-f]+ but the uncle header is/],
      [[nephew, answer(1, { ...u0.result, stateRoot: `0x${'00'.repeat(32)}` }), u1], /uncle 0 hashes to/],
      [[nephew, answer(1, { ...u0.result, size: '0x1' }), u1], /uncle 0's size/],
      [[nephew, answer(1, { ...u0.result, extra: 1 }), u1], /key no uncle answer has: extra/],
      [[nephew, answer(1, { ...u0.result, totalDifficulty: '0x5' }), u1], /totalDifficulty is not null/],
      [[answer(0, { ...nephew.result, gasUsed: '0x1' }), u0, u1], /header hashes to/],
      [[answer(0, { ...nephew.result, uncles: [...(nephew.result.uncles as string[]), twoUncles.hash] }), u0, u1], /at most 2/],
      [[answer(0, null), u0, answer(2, null)], /uncles of a block the partner says it does not have/],
      [[nephew, u0], /missing/],
      [[answer(0, results.get(`${oneUncle.hash}/0x0`)), u0, u1], /not the one asked for/],
    ]
    for (const [items, reason] of cases) {
      const outcome = proof.check(items)
      expect(outcome.kind).toBe('failed')
      expect(outcome.kind === 'failed' && outcome.reason).toMatch(reason)
    }
  })
})
