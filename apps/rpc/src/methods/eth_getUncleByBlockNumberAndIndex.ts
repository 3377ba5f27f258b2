import { toQuantity } from '@uncle-rpc/chain'
import { storedUncleIndex } from '@uncle-rpc/db/chain'
import { type BlockTag, decodeBlockNumberOrTag, decodeUint, positionalParams, type RawJson, rawJson } from '@uncle-rpc/jsonrpc'
import { blockHeight } from './blockParam.js'
import type { MethodContext } from './context.js'
import { keepIfDeep, type UncleFamilyDeps } from './familyDeps.js'

/**
 * `eth_getUncleByBlockNumberAndIndex(block, index)`: the uncle of the canonical indexed block at
 * that height (a quantity, or a tag: blockParam.ts), in the exact bytes of
 * eth_getUncleByBlockHashAndIndex for that block's hash; `null` past its last uncle, and for a
 * height not indexed (forwarded when the key's failover says so). After a reorg the height
 * answers the block that replaced the old one. Two reads: the height's block, then its uncle.
 */
export function createGetUncleByBlockNumberAndIndex(deps: UncleFamilyDeps) {
  const { numberCache, canonicalBlock, findUncle, latest, reads } = deps

  async function read(context: MethodContext, number: bigint, quantity: string, index: bigint): Promise<RawJson | null> {
    const { network } = context
    const indexQuantity = toQuantity(index)
    const call = { method: 'eth_getUncleByBlockNumberAndIndex', params: [quantity, indexQuantity] }
    const block = await reads.read(context, call, () => canonicalBlock({ network: network.name, number }))
    if (block === null) return reads.unindexed(context, call)
    // Note: the block row says how many uncles it has: past them the null is authoritative.
    const stored = storedUncleIndex(index)
    if (stored === null || stored >= block.uncleCount) return null
    const found = await reads.read(context, call, () => findUncle({ network: network.name, blockHash: block.hash, index: stored }))
    // Note: a block and its uncles are written in one statement; a missing row is a read the index cannot answer.
    if (found === null) return reads.unindexed(context, call)
    return rawJson(keepIfDeep(deps, numberCache, { network, key: quantity, index: indexQuantity, blockNumber: block.number }, found.json))
  }

  return (params: unknown, context: MethodContext): RawJson | null | Promise<RawJson | null> => {
    // Note: keys are made from decoded params only, so text that is a key is canonical.
    if (Array.isArray(params) && params.length === 2 && typeof params[0] === 'string' && typeof params[1] === 'string') {
      const hit = numberCache.get(context.network.name, params[0], params[1])
      if (hit !== undefined) return rawJson(hit)
    }
    let block: bigint | BlockTag
    let index: bigint
    let number: bigint | null
    try {
      ;[block, index] = positionalParams<[bigint | BlockTag, bigint]>(params, [decodeBlockNumberOrTag, decodeUint])
      number = blockHeight(block, latest(context.network.name))
    } catch (error) {
      return Promise.reject(error as Error)
    }
    if (number === null) return reads.unindexed(context, { method: 'eth_getUncleByBlockNumberAndIndex', params: [block, toQuantity(index)] })
    const quantity = toQuantity(number)
    const cached = numberCache.get(context.network.name, quantity, toQuantity(index))
    if (cached !== undefined) return rawJson(cached)
    return read(context, number, quantity, index)
  }
}
