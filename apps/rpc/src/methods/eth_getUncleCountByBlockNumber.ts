import { toQuantity } from '@uncle-rpc/chain'
import { type BlockTag, decodeBlockNumberOrTag, positionalParams, type RawJson, rawJson } from '@uncle-rpc/jsonrpc'
import { blockHeight } from './blockParam.js'
import type { MethodContext } from './context.js'
import { countKey } from '../reads/cache.js'
import { keepIfDeep, type UncleFamilyDeps } from './familyDeps.js'

/**
 * `eth_getUncleCountByBlockNumber(block)`: the number of uncles of the canonical indexed block at
 * that height (a quantity, or a tag: blockParam.ts) as a quantity; `null` when the height is not
 * indexed (forwarded when the key's failover says so). After a reorg the height answers the
 * block that replaced the old one.
 */
export function createGetUncleCountByBlockNumber(deps: UncleFamilyDeps) {
  const { numberCache, canonicalBlock, latest, reads } = deps

  async function read(context: MethodContext, number: bigint, quantity: string): Promise<RawJson | null> {
    const { network } = context
    const call = { method: 'eth_getUncleCountByBlockNumber', params: [quantity] }
    const block = await reads.read(context, call, () => canonicalBlock({ network: network.name, number }))
    if (block === null) return reads.unindexed(context, call)
    return rawJson(keepIfDeep(deps, numberCache, { network, key: quantity, index: countKey, blockNumber: block.number }, `"${toQuantity(block.uncleCount)}"`))
  }

  return (params: unknown, context: MethodContext): RawJson | null | Promise<RawJson | null> => {
    // Note: keys are made from decoded numbers only, so text that is a key is a canonical quantity.
    if (Array.isArray(params) && params.length === 1 && typeof params[0] === 'string') {
      const hit = numberCache.get(context.network.name, params[0], countKey)
      if (hit !== undefined) return rawJson(hit)
    }
    let number: bigint | null
    let block: bigint | BlockTag
    try {
      ;[block] = positionalParams<[bigint | BlockTag]>(params, [decodeBlockNumberOrTag])
      number = blockHeight(block, latest(context.network.name))
    } catch (error) {
      return Promise.reject(error as Error)
    }
    if (number === null) return reads.unindexed(context, { method: 'eth_getUncleCountByBlockNumber', params: [block] })
    const quantity = toQuantity(number)
    const cached = numberCache.get(context.network.name, quantity, countKey)
    if (cached !== undefined) return rawJson(cached)
    return read(context, number, quantity)
  }
}
