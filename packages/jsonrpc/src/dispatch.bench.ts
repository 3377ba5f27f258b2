import { bench, describe } from 'vitest'
import { createJsonRpcHandler } from './dispatch.js'
import { decodeHash, decodeUint, positionalParams } from './params.js'
import { rawJson } from './response.js'
import type { JsonRpcMethods } from './types.js'

// Run: npx vitest bench --run packages/jsonrpc
// One typical eth_getUncleByBlockHashAndIndex request through the whole core (parse, raw id,
// dispatch, param decoding, serialization), answered from a cached rawJson or a plain object.

const H = '0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b'
const uncle = {
  difficulty: '0x57f117f5c',
  extraData: '0x476574682f76312e302e302f77696e646f77732f676f312e342e32',
  gasLimit: '0x1388',
  gasUsed: '0x0',
  hash: '0x932bdf904546a2287a2c9b2ede37925f698a7657484b172d4e5184f80bdd464d',
  logsBloom: `0x${'0'.repeat(512)}`,
  miner: '0x5bf5e9cf9b456d6591073513de7fd69a9bef04bc',
  mixHash: '0x4500aa4ee2b3044a155252e35273770edeb2ab6f8cb19ca8e732771484462169',
  nonce: '0x24732773618192ac',
  number: '0x299',
  parentHash: '0xa779859b1ee558258b7008bbabff272280136c5dd3eb3ea3bfa8f6ae03bf91e5',
  receiptsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
  sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
  size: '0x21d',
  stateRoot: '0x2604fbf5183f5360da249b51f1b9f1e0f315d2ff3ffa1a4143ff221ad9ca1fec',
  timestamp: '0x55ba4827',
  totalDifficulty: null,
  transactionsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
  uncles: [],
}
const cached = rawJson(JSON.stringify(uncle))
const methods: JsonRpcMethods<null> = {
  cached: async (params) => (positionalParams(params, [decodeHash, decodeUint]) ? cached : null),
  plain: async (params) => (positionalParams(params, [decodeHash, decodeUint]) ? uncle : null),
}
const handler = createJsonRpcHandler<null>({ methods })
const request = (method: string) => `{"jsonrpc":"2.0","id":1,"method":"${method}","params":["${H}","0x0"]}`
const cachedText = request('cached')
const plainText = request('plain')
const badText = request('cached').replace('"0x0"', '"0x01"')
const batchText = `[${Array.from({ length: 10 }, () => cachedText).join(',')}]`

describe('handle', () => {
  bench('single request, rawJson result', async () => {
    await handler.handle(cachedText, null)
  })
  bench('single request, plain object result (JSON.stringify + Go escaping)', async () => {
    await handler.handle(plainText, null)
  })
  bench('single request, -32602 error', async () => {
    await handler.handle(badText, null)
  })
  bench('batch of 10, rawJson results', async () => {
    await handler.handle(batchText, null)
  })
  bench('baseline: JSON.parse of the request alone', () => {
    JSON.parse(cachedText)
  })
})
