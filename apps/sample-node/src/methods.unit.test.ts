import { hashHeader, headerFromRpc } from '@uncle-rpc/chain'
import { InvalidParamsError } from '@uncle-rpc/jsonrpc'
import { beforeAll, describe, expect, test } from 'vitest'
import { createMethods } from './methods.js'
import { createSyntheticChain, type SyntheticChain } from './sources/synthetic/syntheticChain.js'

describe('createMethods (synthetic chain of 200 blocks)', () => {
  let chain: SyntheticChain
  let methods: ReturnType<typeof createMethods>
  const call = (name: string, params?: unknown[]) => (methods[name] as (p: unknown, c: unknown) => unknown)(params, {})
  const numberOf = (result: unknown) => (result as { number: string }).number

  beforeAll(async () => {
    chain = await createSyntheticChain({ seed: 1, blocks: 200, chainId: 1337n })
    methods = createMethods({ chain, tamperBlock: 5n })
  })

  test('default: chain id, network id, head', () => {
    expect(call('eth_chainId')).toBe('0x539')
    expect(call('net_version', [])).toBe('1337')
    expect(call('eth_blockNumber')).toBe('0xc7')
  })

  test('args: tags resolve to the head, 0, head − 32 and head − 64', () => {
    expect(numberOf(call('eth_getBlockByNumber', ['latest', false]))).toBe('0xc7')
    expect(numberOf(call('eth_getBlockByNumber', ['pending', true]))).toBe('0xc7')
    expect(numberOf(call('eth_getBlockByNumber', ['earliest', false]))).toBe('0x0')
    expect(numberOf(call('eth_getBlockByNumber', ['safe', false]))).toBe('0xa7')
    expect(numberOf(call('eth_getBlockByNumber', ['finalized', false]))).toBe('0x87')
  })

  test('behavior: blocks carry totalDifficulty, uncles do not; counts match', () => {
    let checked = 0
    for (let n = 1n; n < 200n; n++) {
      const block = call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]) as Record<string, unknown>
      expect(block.totalDifficulty).toMatch(/^0x[1-9a-f]/)
      const uncles = block.uncles as string[]
      expect(call('eth_getUncleCountByBlockHash', [block.hash])).toBe(`0x${uncles.length.toString(16)}`)
      uncles.forEach((hash, i) => {
        const uncle = call('eth_getUncleByBlockHashAndIndex', [block.hash, `0x${i}`]) as Record<string, unknown>
        expect(uncle.hash).toBe(hash)
        expect(uncle).not.toHaveProperty('totalDifficulty')
        expect(uncle.uncles).toEqual([])
        expect(call('eth_getUncleByBlockNumberAndIndex', [block.number, `0x${i}`])).toEqual(uncle)
        checked++
      })
      expect(call('eth_getUncleByBlockHashAndIndex', [block.hash, `0x${uncles.length}`])).toBeNull()
    }
    expect(checked).toBeGreaterThan(5)
  })

  test('behavior: not found is null', () => {
    const unknown = `0x${'00'.repeat(31)}01`
    expect(call('eth_getBlockByNumber', ['0xc8', false])).toBeNull()
    expect(call('eth_getBlockByHash', [unknown, false])).toBeNull()
    expect(call('eth_getUncleCountByBlockHash', [unknown])).toBeNull()
    expect(call('eth_getUncleCountByBlockNumber', ['0x1000'])).toBeNull()
    expect(call('eth_getUncleByBlockHashAndIndex', [unknown, '0x0'])).toBeNull()
  })

  test('behavior: the tampered block keeps its hash but no longer hashes to it', () => {
    const tampered = headerFromRpc(call('eth_getBlockByNumber', ['0x5', false]))
    expect(tampered.hash).toBe(chain.blockByNumber(5n)?.header.hash)
    expect(hashHeader(tampered)).not.toBe(tampered.hash)
    const honest = headerFromRpc(call('eth_getBlockByNumber', ['0x6', false]))
    expect(hashHeader(honest)).toBe(honest.hash)
  })

  test('error: parameters are checked as geth does', () => {
    expect(() => call('eth_getBlockByNumber', ['0x1'])).toThrow(new InvalidParamsError('missing value for required argument 1'))
    expect(() => call('eth_chainId', [1])).toThrow('too many arguments, want at most 0')
    expect(() => call('eth_getUncleCountByBlockHash', ['0x12'])).toThrow(
      'invalid argument 0: hex string has length 2, want 64 for common.Hash',
    )
  })
})
