import { haveFixtures, readFixtureJson } from '@uncle-rpc/testing'
import { describe, expect, test } from 'vitest'
import { headerFromRpc } from './codecs.js'
import { hashHeader, hashUncles } from './hashHeader.js'

type MainnetBlocks = {
  blocks: {
    number: number
    hash: string
    header: Record<string, unknown>
    uncles: (Record<string, unknown> & { headerRlpLength: number })[]
  }[]
}
const mainnet = 'mainnet-era1/mainnet_0-8191_blocks_with_uncles.json'

describe.runIf(haveFixtures(mainnet))('mainnet 0–8191 (era1-decoded)', () => {
  const { blocks } = readFixtureJson<MainnetBlocks>(mainnet)

  test('default: every block header and uncle re-hashes, and sha3Uncles matches', () => {
    let uncleCount = 0
    for (const block of blocks) {
      const header = headerFromRpc(block.header)
      expect(hashHeader(header)).toBe(block.hash)
      const uncles = block.uncles.map(headerFromRpc)
      for (const uncle of uncles) expect(hashHeader(uncle)).toBe(uncle.hash)
      expect(hashUncles(uncles)).toBe(header.sha3Uncles)
      uncleCount += uncles.length
    }
    expect(blocks.length).toBe(1295)
    expect(uncleCount).toBe(1410)
  })
})
