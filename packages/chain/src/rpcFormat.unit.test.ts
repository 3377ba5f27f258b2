import { readFileSync } from 'node:fs'
import { describeWithFixtures, fixturePath, readFixtureJson, readFixtureJsonl, readFixtureText } from '@uncle-rpc/testing'
import { expect, test } from 'vitest'
import { ethereumTestsFiles, ethereumTestsHeaderToRpc, readEthereumTestsChains } from './_test/ethereumTests.js'
import { postMergeHeaderJson } from './_test/postMergeHeader.js'
import { headerFromRpc } from './codecs.js'
import { openEra1 } from './era1/openEra1.js'
import { hashHeader } from './hashHeader.js'
import type { HashedHeader } from './header.js'
import { rpcUncleJson, toQuantity, toRpcBlock, toRpcHeaderFields, toRpcUncle, uncleJsonParts } from './rpcFormat.js'
import { uncleSize } from './uncleSize.js'

const uncleLines = 'derived/geth_eth_getUncleByBlockHashAndIndex_mainnet_0-8191.jsonl'
const uncleTests = 'derived/geth_eth_getUncleByBlockHashAndIndex_ethereum-tests.json'
const infura = 'recorded/infura-docs/eth_getUncleByBlockHashAndIndex.response.json'
const blockLines = 'derived/geth_eth_getBlockByNumber_false_mainnet_0-1023.jsonl'
const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'

type UncleLine = {
  blockHash: string
  blockNumber: number | string
  index: string
  result: Record<string, unknown> & { size: string }
}

test('default: toQuantity writes minimal hex', () => {
  expect([0n, 1n, 255n, 256n, 2n ** 64n].map(toQuantity)).toEqual(['0x0', '0x1', '0xff', '0x100', '0x10000000000000000'])
  expect(toQuantity(0x1b4)).toBe('0x1b4')
})

test('args: post-merge header fields are written in wire form', () => {
  const fields = toRpcHeaderFields(headerFromRpc(postMergeHeaderJson))
  expect(fields).toEqual(postMergeHeaderJson)
  expect(Object.keys(toRpcUncle(headerFromRpc(postMergeHeaderJson), { totalDifficulty: 'omit' }))).toMatchInlineSnapshot(`
    [
      "baseFeePerGas",
      "blobGasUsed",
      "difficulty",
      "excessBlobGas",
      "extraData",
      "gasLimit",
      "gasUsed",
      "hash",
      "logsBloom",
      "miner",
      "mixHash",
      "nonce",
      "number",
      "parentBeaconBlockRoot",
      "parentHash",
      "receiptsRoot",
      "requestsHash",
      "sha3Uncles",
      "size",
      "stateRoot",
      "timestamp",
      "transactionsRoot",
      "uncles",
      "withdrawalsRoot",
    ]
  `)
})

describeWithFixtures([uncleLines], 'mainnet uncles (derived geth answers)', () => {
  const lines = readFixtureJsonl<UncleLine>(uncleLines)
  const raw = readFixtureText(uncleLines).split('\n').filter(Boolean)

  test('default: toRpcUncle(omit) is byte-identical to every derived result, and size is uncleSize', () => {
    expect(lines.length).toBe(1410)
    lines.forEach((line, i) => {
      const uncle = headerFromRpc(line.result)
      expect(hashHeader(uncle)).toBe(uncle.hash)
      const json = JSON.stringify(toRpcUncle(uncle, { totalDifficulty: 'omit' }))
      expect(json).toBe(JSON.stringify(line.result))
      // and the result is exactly the bytes of the line (no reformatting on our side)
      expect(raw[i]!.includes(`"result":${json}}`)).toBe(true)
      expect(line.result.size).toBe(toQuantity(uncleSize(uncle)))
    })
  })
})

describeWithFixtures([uncleTests, ...ethereumTestsFiles], 'ethereum/tests uncles (derived geth answers)', () => {
  const expected = readFixtureJson<(UncleLine & { file: string; test: string; network: string })[]>(uncleTests)
  const chains = readEthereumTestsChains()

  test('default: byte-identical results, London uncles with baseFeePerGas first', () => {
    expect(expected.length).toBe(6)
    for (const item of expected) {
      const chain = chains.find((c) => c.file === item.file && c.test === item.test)!
      const block = chain.blocks.find(
        (b) => hashHeader(headerFromRpc(ethereumTestsHeaderToRpc(b.blockHeader))) === item.blockHash,
      )!
      const uncle = headerFromRpc(ethereumTestsHeaderToRpc(block.uncleHeaders[Number(item.index)]!))
      const json = JSON.stringify(toRpcUncle(uncle, { totalDifficulty: 'omit' }))
      expect(json).toBe(JSON.stringify(item.result))
      expect(item.result.size).toBe(toQuantity(uncleSize(uncle)))
      expect(Object.keys(item.result)[0]).toBe(item.network === 'London' ? 'baseFeePerGas' : 'difficulty')
    }
  })
})

describeWithFixtures([uncleLines, infura], 'Infura documented response', () => {
  test('default: toRpcUncle(null) for block 668 index 0 equals it, keys in the same order', () => {
    // Note: the docs' request names another block (6,008,149, no uncles); the result is block 668's uncle 0.
    const { result } = readFixtureJson<{ result: Record<string, unknown> }>(infura)
    const line = readFixtureJsonl<UncleLine>(uncleLines).find((l) => Number(l.blockNumber) === 668 && l.index === '0x0')!
    const ours = toRpcUncle(headerFromRpc(line.result), { totalDifficulty: 'null' })
    expect(ours).toEqual(result)
    expect(Object.keys(ours)).toEqual(Object.keys(result))
    expect(JSON.stringify(ours)).toBe(JSON.stringify(result))
  })
})

describeWithFixtures([blockLines, era1], 'mainnet blocks 0–1023 (derived geth eth_getBlockByNumber(n, false))', () => {
  test('default: toRpcBlock with size and totalDifficulty from the era1 reader is byte-identical', () => {
    const lines = readFixtureText(blockLines).split('\n').filter(Boolean)
    expect(lines.length).toBe(1024)
    const file = openEra1(readFileSync(fixturePath(era1)))
    lines.forEach((line, n) => {
      const block = file.block(BigInt(n))
      const json = toRpcBlock(block.header, {
        size: block.size,
        totalDifficulty: block.totalDifficulty,
        transactionHashes: block.transactionHashes,
        uncleHashes: block.uncles.map((u: HashedHeader) => u.hash),
      })
      expect(JSON.stringify(json)).toBe(line)
    })
  })

  test('behavior: without totalDifficulty the key is absent (geth ≥ v1.14.11)', () => {
    const file = openEra1(readFileSync(fixturePath(era1)))
    const block = file.block(0n)
    const json = toRpcBlock(block.header, { size: block.size, transactionHashes: [], uncleHashes: [] })
    expect('totalDifficulty' in json).toBe(false)
    expect(Object.keys(json)).toEqual([...Object.keys(json)].sort())
  })
})

/** The hand-built Prague header cut back to every fork's fields (Frontier … Prague), as uncles. */
function everyForkPrefix(): HashedHeader[] {
  const order = ['baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash']
  return Array.from({ length: order.length + 1 }, (_, keep) => {
    const json: Record<string, string> = { ...postMergeHeaderJson, difficulty: '0x0', extraData: '0x' }
    for (const name of order.slice(keep)) delete json[name]
    return headerFromRpc(json)
  })
}

test('behavior: rpcUncleJson writes the bytes JSON.stringify(toRpcUncle) writes, for every fork prefix and both totalDifficulty modes', () => {
  for (const uncle of everyForkPrefix())
    for (const totalDifficulty of ['omit', 'null'] as const) {
      expect(rpcUncleJson(uncle, { totalDifficulty })).toBe(JSON.stringify(toRpcUncle(uncle, { totalDifficulty })))
      expect(rpcUncleJson(uncle, { totalDifficulty }, 1234)).toBe(JSON.stringify(toRpcUncle(uncle, { totalDifficulty }, 1234)))
    }
})

test('behavior: uncleJsonParts lists rpcUncleJson\'s keys in its order, for every fork prefix and both totalDifficulty modes', () => {
  for (const uncle of everyForkPrefix())
    for (const totalDifficulty of ['omit', 'null'] as const) {
      // The parts written as a database would: a quantity as minimal hex, bytes as hex, absent optional fields left out.
      const written = uncleJsonParts({ totalDifficulty }).flatMap((part) => {
        if ('json' in part) return [`"${part.key}":${part.json}`]
        const value = part.field === 'size' ? 1234 : uncle[part.field]
        if (value === undefined) return part.optional ? [] : ['missing']
        return [`"${part.key}":"${part.quantity ? toQuantity(value as bigint) : (value as string)}"`]
      })
      expect(`{${written.join(',')}}`).toBe(rpcUncleJson(uncle, { totalDifficulty }, 1234))
    }
})
