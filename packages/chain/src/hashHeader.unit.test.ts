import { describeWithFixtures, readFixtureJson } from '@uncle-rpc/testing'
import { fromRlp, type Hex, toRlp } from 'viem'
import { expect, test } from 'vitest'
import { ethereumTestsFiles, ethereumTestsHeaderToRpc, readEthereumTestsChains } from './_test/ethereumTests.js'
import { headerFromRpc } from './codecs.js'
import { hashHeader, hashUncles, headerRlp } from './hashHeader.js'
import { hexByteLength } from './uncleSize.js'

type MainnetBlocks = {
  blocks: {
    number: number
    hash: string
    header: Record<string, unknown>
    uncles: (Record<string, unknown> & { headerRlpLength: number })[]
  }[]
}
const mainnet = 'mainnet-era1/mainnet_0-8191_blocks_with_uncles.json'
const mainnetHeaders = 'mainnet-era1/mainnet_0-511_headers.json'
const emptyUnclesHash = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347'

describeWithFixtures([mainnet], 'mainnet 0–8191 (era1-decoded)', () => {
  const { blocks } = readFixtureJson<MainnetBlocks>(mainnet)

  test('default: every block header and uncle re-hashes, and sha3Uncles matches', () => {
    let uncleCount = 0
    for (const block of blocks) {
      const header = headerFromRpc(block.header)
      expect(hashHeader(header)).toBe(block.hash)
      const uncles = block.uncles.map(headerFromRpc)
      uncles.forEach((uncle, i) => {
        expect(hashHeader(uncle)).toBe(uncle.hash)
        expect(hexByteLength(headerRlp(uncle))).toBe(block.uncles[i]!.headerRlpLength)
      })
      expect(hashUncles(uncles)).toBe(header.sha3Uncles)
      uncleCount += uncles.length
    }
    expect(blocks.length).toBe(1295)
    expect(uncleCount).toBe(1410)
  })
})

describeWithFixtures([mainnetHeaders], 'mainnet 0–511 headers', () => {
  const { headers } = readFixtureJson<{ headers: Record<string, unknown>[] }>(mainnetHeaders)

  test('default: every header re-hashes and links to its parent from genesis', () => {
    let parent: Hex = `0x${'0'.repeat(64)}`
    headers.forEach((json, i) => {
      const header = headerFromRpc(json)
      expect(header.number).toBe(BigInt(i))
      expect(header.parentHash).toBe(parent)
      expect(hashHeader(header)).toBe(header.hash)
      parent = header.hash
    })
    expect(headers.length).toBe(512)
    expect(headers[0]!.hash).toBe('0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3')
  })

  test('behavior: hashUncles of no uncles is the empty-list hash', () => {
    expect(hashUncles([])).toBe(emptyUnclesHash)
  })
})

describeWithFixtures([...ethereumTestsFiles], 'ethereum/tests bcUncleTest chains (Istanbul, Berlin, London)', () => {
  const chains = readEthereumTestsChains()

  test('default: genesis, every block and every uncle re-hashes; header RLP is the one inside the block RLP', () => {
    let headerCount = 0
    let uncleCount = 0
    const networks = new Set<string>()
    for (const chain of chains) {
      networks.add(chain.network)
      const genesis = headerFromRpc(ethereumTestsHeaderToRpc(chain.genesisBlockHeader))
      expect(hashHeader(genesis)).toBe(genesis.hash)
      expect(headerRlp(genesis)).toBe(toRlp((fromRlp(chain.genesisRLP) as Hex[][])[0]!))
      for (const block of chain.blocks) {
        const header = headerFromRpc(ethereumTestsHeaderToRpc(block.blockHeader))
        expect(hashHeader(header)).toBe(header.hash)
        const [rlpHeader, , rlpUncles] = fromRlp(block.rlp) as [Hex[], unknown, Hex[][]]
        expect(headerRlp(header)).toBe(toRlp(rlpHeader))
        const uncles = block.uncleHeaders.map((u) => headerFromRpc(ethereumTestsHeaderToRpc(u)))
        uncles.forEach((uncle, i) => {
          expect(hashHeader(uncle)).toBe(uncle.hash)
          expect(headerRlp(uncle)).toBe(toRlp(rlpUncles[i]!))
        })
        expect(hashUncles(uncles)).toBe(header.sha3Uncles)
        headerCount++
        uncleCount += uncles.length
      }
    }
    expect([...networks].sort()).toEqual(['Berlin', 'Istanbul', 'London'])
    expect({ chains: chains.length, headerCount, uncleCount }).toEqual({ chains: 6, headerCount: 15, uncleCount: 6 })
  })

  test('behavior: London headers and uncles carry baseFeePerGas', () => {
    const london = chains.filter((c) => c.network === 'London')
    for (const chain of london)
      for (const block of chain.blocks) {
        expect(headerFromRpc(ethereumTestsHeaderToRpc(block.blockHeader)).baseFeePerGas).toBeTypeOf('bigint')
        for (const u of block.uncleHeaders) expect(headerFromRpc(ethereumTestsHeaderToRpc(u)).baseFeePerGas).toBeTypeOf('bigint')
      }
  })
})
