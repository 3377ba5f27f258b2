import { type Hex, toQuantity } from '@uncle-rpc/chain'
import { decodeHash, positionalParams, type RawJson, rawJson } from '@uncle-rpc/jsonrpc'
import type { MethodContext } from './context.js'
import { countKey } from '../reads/cache.js'
import { keepIfDeep, type UncleFamilyDeps } from './familyDeps.js'

/**
 * `eth_getUncleCountByBlockHash(blockHash)`: the number of uncles of the indexed block with this
 * hash as a quantity, `null` when the block is not indexed (forwarded when the key's failover
 * says so). Params as geth (-32602 with its messages); cached as the uncle answers are (at least
 * `confirmations` deep, null never).
 */
export function createGetUncleCountByBlockHash(deps: UncleFamilyDeps) {
  const { cache, blockByHash, reads } = deps

  async function read(context: MethodContext, blockHash: Hex): Promise<RawJson | null> {
    const { network } = context
    const call = { method: 'eth_getUncleCountByBlockHash', params: [blockHash] }
    const block = await reads.read(context, call, () => blockByHash({ network: network.name, blockHash }))
    if (block === null) return reads.unindexed(context, call)
    return rawJson(keepIfDeep(deps, cache, { network, key: blockHash, index: countKey, blockNumber: block.number }, `"${toQuantity(block.uncleCount)}"`))
  }

  // Note: not async: a cached answer is returned as a value (see eth_getUncleByBlockHashAndIndex).
  return (params: unknown, context: MethodContext): RawJson | null | Promise<RawJson | null> => {
    // Note: only decoded params make a key, so text that is a key is valid and decodes to itself.
    if (Array.isArray(params) && params.length === 1 && typeof params[0] === 'string' && params[0].length === 66) {
      const hit = cache.get(context.network.name, params[0], countKey)
      if (hit !== undefined) return rawJson(hit)
    }
    let blockHash: Hex
    try {
      ;[blockHash] = positionalParams<[Hex]>(params, [decodeHash])
    } catch (error) {
      return Promise.reject(error as Error)
    }
    const cached = cache.get(context.network.name, blockHash, countKey)
    if (cached !== undefined) return rawJson(cached)
    return read(context, blockHash)
  }
}
