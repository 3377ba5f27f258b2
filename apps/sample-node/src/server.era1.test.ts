import { describeWithFixtures, fixturePath, readFixtureJson, readFixtureText } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { call, inParallel, post, type SpawnedNode, spawnSampleNode } from './_test/spawnSampleNode.js'

// The real node process serving mainnet era1 epoch 0, compared byte for byte with what geth
// v1.13 sends (derived fixtures: blocks with totalDifficulty, uncles without; "\n" at the end).

const blocksFile = 'derived/geth_eth_getBlockByNumber_false_mainnet_0-1023.jsonl'
const unclesFile = 'derived/geth_eth_getUncleByBlockHashAndIndex_mainnet_0-8191.jsonl'
const casesFile = 'derived/geth_param_validation_cases.json'
const era1Dir = 'mainnet-era1/'

type UncleLine = { blockHash: string; blockNumber: number; index: string; result: unknown }
type Case = { name: string; request: unknown; gethBody: string }

const body = (id: number | string, json: string) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${json}}`
const hex = (n: number) => `0x${n.toString(16)}`

describeWithFixtures(
  [blocksFile, unclesFile, casesFile, `${era1Dir}mainnet-00000-5ec1ffb8.era1`],
  'sample-node --chain mainnet-era1/ (real process)',
  () => {
    let node: SpawnedNode
    const blockLines = readFixtureText(blocksFile).split('\n').filter(Boolean)
    const uncleLines = readFixtureText(unclesFile)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as UncleLine)
    const blockHashes = blockLines.map((line) => (JSON.parse(line) as { hash: string }).hash)

    beforeAll(async () => {
      node = await spawnSampleNode(['--port', '0', '--chain', fixturePath(era1Dir)])
    })
    afterAll(async () => {
      expect(await node?.stop()).toBe(0)
    })

    test('default: prints its listening line', () => {
      expect(node.line).toMatch(
        /^sample-node listening on http:\/\/127\.0\.0\.1:\d+ \(chain: era1 blocks 0–8191 from 1 file, chainId 1\)$/,
      )
    })

    test('behavior: blocks 0–1023 by number and by hash are byte-identical to geth, singly', async () => {
      expect(blockLines.length).toBe(1024)
      await inParallel([...blockLines.keys()], 8, async (n) => {
        const line = blockLines[n] as string
        const byNumber = await post(node.url, call(n, 'eth_getBlockByNumber', [hex(n), false]))
        expect(byNumber.status).toBe(200)
        expect(byNumber.headers.get('content-type')).toBe('application/json')
        expect(byNumber.text).toBe(`${body(n, line)}\n`)
        const byHash = await post(node.url, call(`h${n}`, 'eth_getBlockByHash', [blockHashes[n], true]))
        expect(byHash.text).toBe(`${body(`h${n}`, line)}\n`)
      })
    })

    test('behavior: all 1,410 uncles by hash and by number are byte-identical to geth, singly', async () => {
      expect(uncleLines.length).toBe(1410)
      await inParallel([...uncleLines.keys()], 8, async (i) => {
        const u = uncleLines[i] as UncleLine
        const expected = JSON.stringify(u.result)
        const byHash = await post(node.url, call(i, 'eth_getUncleByBlockHashAndIndex', [u.blockHash, u.index]))
        expect(byHash.text).toBe(`${body(i, expected)}\n`)
        const byNumber = await post(node.url, call(i, 'eth_getUncleByBlockNumberAndIndex', [hex(u.blockNumber), u.index]))
        expect(byNumber.text).toBe(`${body(i, expected)}\n`)
      })
    })

    test('behavior: the same in batches of 100', async () => {
      for (let start = 0; start < 1024; start += 100) {
        const ns = [...blockLines.keys()].slice(start, start + 100)
        const answer = await post(
          node.url,
          ns.map((n) => call(n, 'eth_getBlockByNumber', [hex(n), false])),
        )
        expect(answer.text).toBe(`[${ns.map((n) => body(n, blockLines[n] as string)).join(',')}]\n`)
      }
      for (let start = 0; start < uncleLines.length; start += 100) {
        const batch = uncleLines.slice(start, start + 100)
        const byHash = await post(
          node.url,
          batch.map((u, i) => call(start + i, 'eth_getUncleByBlockHashAndIndex', [u.blockHash, u.index])),
        )
        expect(byHash.text).toBe(`[${batch.map((u, i) => body(start + i, JSON.stringify(u.result))).join(',')}]\n`)
        const byNumber = await post(
          node.url,
          batch.map((u, i) => call(start + i, 'eth_getUncleByBlockNumberAndIndex', [hex(u.blockNumber), u.index])),
        )
        expect(byNumber.text).toBe(byHash.text)
      }
    })

    test('behavior: uncle counts by hash and number; unknown blocks count null', async () => {
      const counts = new Map<number, { hash: string; count: number }>()
      for (const u of uncleLines)
        counts.set(u.blockNumber, { hash: u.blockHash, count: (counts.get(u.blockNumber)?.count ?? 0) + 1 })
      const entries = [...counts.entries()]
      expect(entries.length).toBe(1295)
      for (let start = 0; start < entries.length; start += 500) {
        const chunk = entries.slice(start, start + 500)
        const byNumber = await post(
          node.url,
          chunk.map(([n]) => call(n, 'eth_getUncleCountByBlockNumber', [hex(n)])),
        )
        expect(byNumber.text).toBe(`[${chunk.map(([n, c]) => body(n, `"${hex(c.count)}"`)).join(',')}]\n`)
        const byHash = await post(
          node.url,
          chunk.map(([n, c]) => call(n, 'eth_getUncleCountByBlockHash', [c.hash])),
        )
        expect(byHash.text).toBe(byNumber.text)
      }
      const none = await post(node.url, [
        call(1, 'eth_getUncleCountByBlockNumber', ['0x0']),
        call(2, 'eth_getUncleCountByBlockNumber', ['0x2000']),
        call(3, 'eth_getUncleCountByBlockHash', [`0x${'12'.repeat(32)}`]),
      ])
      expect(none.text).toBe(`[${body(1, '"0x0"')},${body(2, 'null')},${body(3, 'null')}]\n`)
    })

    test('behavior: tags, chain id, head, not found, unknown method', async () => {
      const latest = await post(node.url, call(1, 'eth_getBlockByNumber', ['0x1fff', false]))
      const cases: [unknown, string][] = [
        [call(1, 'eth_chainId'), body(1, '"0x1"')],
        [call(1, 'net_version', []), body(1, '"1"')],
        [call(1, 'eth_blockNumber'), body(1, '"0x1fff"')],
        [call(1, 'eth_getBlockByNumber', ['earliest', false]), body(1, blockLines[0] as string)],
        [call(1, 'eth_getBlockByNumber', ['latest', false]), latest.text.trimEnd()],
        [call(1, 'eth_getBlockByNumber', ['pending', false]), latest.text.trimEnd()],
        [call(1, 'eth_getBlockByNumber', ['0x2000', false]), body(1, 'null')],
        [call(1, 'eth_getBlockByHash', [`0x${'ab'.repeat(32)}`, false]), body(1, 'null')],
        [call(1, 'eth_getUncleByBlockNumberAndIndex', ['0x3', '0x1']), body(1, 'null')],
        [call(1, 'eth_getUncleByBlockNumberAndIndex', ['0x2000', '0x0']), body(1, 'null')],
        [
          call(1, 'eth_foo', []),
          '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method eth_foo does not exist/is not available"}}',
        ],
      ]
      for (const [request, expected] of cases) expect((await post(node.url, request)).text).toBe(`${expected}\n`)
      expect(latest.text).toContain('"number":"0x1fff"')
      const safe = await post(node.url, call(1, 'eth_getBlockByNumber', ['safe', false]))
      expect(safe.text).toContain(`"number":"${hex(8191 - 32)}"`)
      const finalized = await post(node.url, call(1, 'eth_getUncleCountByBlockNumber', ['finalized']))
      const expectedFinalized = await post(node.url, call(1, 'eth_getUncleCountByBlockNumber', [hex(8191 - 64)]))
      expect(finalized.text).toBe(expectedFinalized.text)
    })

    test("behavior: geth's parameter validation cases, byte for byte", async () => {
      const { cases } = readFixtureJson<{ cases: Case[] }>(casesFile)
      for (const c of cases) expect((await post(node.url, c.request)).text, c.name).toBe(`${c.gethBody}\n`)
    })

    test('behavior: HTTP edges as geth (health GET, content type, batch limits)', async () => {
      expect((await fetch(node.url)).status).toBe(200)
      const wrongType = await post(node.url, call(1, 'eth_chainId'), 'text/plain')
      expect(wrongType.status).toBe(415)
      expect((await post(node.url, '[]')).text).toBe(
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}\n',
      )
      const tooLarge = await post(
        node.url,
        Array.from({ length: 1001 }, (_, i) => call(i + 7, 'eth_chainId')),
      )
      expect(tooLarge.text).toBe('[{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"batch too large"}}]')
      expect((await post(node.url, '{"jsonrpc":"2.0","method":"eth_chainId"}')).text).toBe('')
    })
  },
)
