import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createLogger } from '@uncle-rpc/config'
import { createJsonRpcHandler, parseMessage } from '@uncle-rpc/jsonrpc'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { countErrorAnswers, createAnswerWithFailover } from './answerWithFailover.js'
import { IndexUnavailableError } from '../methods/failoverPolicy.js'
import type { MethodContext } from '../methods/context.js'
import { createPartner } from './partner.js'

// Usage is billing data: error answers are counted where each answer is made, including a
// partner's answers written with other spacing than ours (a real HTTP partner on loopback).

const spacedError = (id: unknown) => `{ "jsonrpc": "2.0", "id": ${JSON.stringify(id)}, "error" : { "code": -32000, "message": "header not found" } }`
const spacedResult = (id: unknown) => `{ "jsonrpc": "2.0", "id": ${JSON.stringify(id)}, "result": "0x1" }`

let partnerServer: Server
let partnerUrl: string

beforeAll(async () => {
  // Answers call id 0 (and the single call) with an error, the others with a result.
  partnerServer = createServer((req, res) => {
    let text = ''
    req.on('data', (chunk: Buffer) => (text += chunk.toString()))
    req.on('end', () => {
      const body = JSON.parse(text) as { id: unknown } | { id: unknown }[]
      const answer = (call: { id: unknown }) => (call.id === 0 || call.id === 'single' ? spacedError(call.id) : spacedResult(call.id))
      res.setHeader('content-type', 'application/json')
      res.end(Array.isArray(body) ? `[ ${body.map(answer).join(' , ')} ]` : answer(body))
    })
  })
  await new Promise<void>((resolve) => partnerServer.listen(0, '127.0.0.1', resolve))
  partnerUrl = `http://127.0.0.1:${(partnerServer.address() as AddressInfo).port}/`
})

afterAll(() => new Promise<void>((resolve) => partnerServer.close(() => resolve())))

// `unindexed` cannot be answered locally (forwarded); `local` answers; `broken` is a local error.
const handler = createJsonRpcHandler<MethodContext>({
  methods: {
    unindexed: (_params, context) => {
      if (context.failover?.kind === 'forward') context.failover.need({ method: 'unindexed', params: [] })
      throw new IndexUnavailableError(context.failover?.kind ?? 'off')
    },
    local: () => '0x2',
  },
})
const network = { name: 'mainnet', confirmations: 0 }
const call = (id: unknown, method: string) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"${method}","params":[]}`

test('behavior: a forwarded error answer counts once whatever its spacing; local answers count by kind where made', async () => {
  const answer = createAnswerWithFailover({ handler })
  const partner = createPartner({ logger: createLogger({ level: 'fatal', name: 'count-test' }) }, { url: partnerUrl, name: 'mainnet' })
  const single = await answer(parseMessage(call('single', 'unindexed')), network, partner, {})
  expect(single).toEqual({ body: spacedError('single'), local: { found: 0, nulls: 0, errors: 0 }, forwarded: 1, partnerErrors: 1 })
  // Batch: two forwarded (partner ids 0 and 1: error, result), one local result, one local error.
  const batch = await answer(
    parseMessage(`[${call('a', 'unindexed')},${call('b', 'unindexed')},${call('c', 'local')},${call('d', 'nope')}]`),
    network,
    partner,
    {},
  )
  expect(batch.forwarded).toBe(2)
  expect([batch.local, batch.partnerErrors]).toEqual([{ found: 1, nulls: 0, errors: 1 }, 1])
  expect(JSON.parse(batch.body as string)).toEqual([
    { jsonrpc: '2.0', id: 'a', error: { code: -32000, message: 'header not found' } },
    { jsonrpc: '2.0', id: 'b', result: '0x1' },
    { jsonrpc: '2.0', id: 'c', result: '0x2' },
    { jsonrpc: '2.0', id: 'd', error: { code: -32601, message: 'the method nope does not exist/is not available' } },
  ])
  // Unparseable and empty: one error each.
  expect(await answer(parseMessage('{oops'), network, partner, {})).toMatchObject({ local: { errors: 1 }, forwarded: 0 })
  expect(await answer(parseMessage('[]'), network, partner, {})).toMatchObject({ local: { errors: 1 }, forwarded: 0 })
})

test('default: countErrorAnswers reads parsed answers, not text', () => {
  expect(countErrorAnswers(JSON.parse(spacedError(1)))).toBe(1)
  expect(countErrorAnswers({ jsonrpc: '2.0', id: '"error":{', result: null })).toBe(0)
  expect(countErrorAnswers([JSON.parse(spacedError(1)), JSON.parse(spacedResult(2)), { id: 3, error: null }])).toBe(1)
})
