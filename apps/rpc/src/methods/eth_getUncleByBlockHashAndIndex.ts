import { type HashedHeader, type Hex, toRpcUncle } from '@uncle-rpc/chain'
import { decodeHash, decodeUint, positionalParams, type RawJson, rawJson } from '@uncle-rpc/jsonrpc'
import { type AnswerCache, answerKey } from '../cache.js'
import type { ServedNetwork } from '../network.js'

/** A stored uncle with its RLP `size` and the number of the block that includes it. */
export type FoundUncle = { uncle: HashedHeader & { size: number }; blockNumber: bigint }

/** The storage lookup behind the method: one primary-key read. */
export type FindUncle = (params: { network: string; blockHash: Hex; index: number }) => Promise<FoundUncle | null>

export type UncleMethodDeps = {
  findUncle: FindUncle
  cache: AnswerCache
  /** Latest indexed block of a network, or null when unknown. */
  latest: (network: string) => bigint | null
}

/** What every method receives from the transport: the network the request was addressed to. */
export type MethodContext = { network: ServedNetwork }

// Note: the uncles table keys `index` as smallint; a larger index can never match (geth: null).
const maxStoredIndex = 32767n

/** The uncle as JSON text: keys alphabetical, `totalDifficulty: null` (the contract, Infura's sample). */
export function serializeUncle(uncle: HashedHeader & { size: number }): string {
  return JSON.stringify(toRpcUncle(uncle, { totalDifficulty: 'null' }, uncle.size))
}

/**
 * `eth_getUncleByBlockHashAndIndex(blockHash, index)`: params decoded as geth does (-32602 with
 * its messages), `null` when the block or index is unknown. Found answers from blocks at least
 * `confirmations` below the network's latest indexed block are cached; null answers never are
 * (the block may be indexed later).
 */
export function createGetUncleByBlockHashAndIndex(deps: UncleMethodDeps) {
  const { findUncle, cache, latest } = deps
  // Lookups in flight by answer key: identical concurrent requests share one query (and one
  // serialization), so a burst for a new block costs Postgres one lookup. Entries leave when settled.
  const inFlight = new Map<string, Promise<string | null>>()

  async function lookup(key: string, network: ServedNetwork, blockHash: Hex, index: number): Promise<string | null> {
    const found = await findUncle({ network: network.name, blockHash, index })
    if (found === null) return null
    const json = serializeUncle(found.uncle)
    const head = latest(network.name)
    if (head !== null && found.blockNumber + BigInt(network.confirmations) <= head) cache.set(key, json)
    return json
  }

  return async (params: unknown, { network }: MethodContext): Promise<RawJson | null> => {
    const [blockHash, index] = positionalParams<[Hex, bigint]>(params, [decodeHash, decodeUint])
    if (index > maxStoredIndex) return null
    const key = answerKey(network.name, blockHash, index)
    const cached = cache.get(key)
    if (cached !== undefined) return rawJson(cached)
    let pending = inFlight.get(key)
    if (pending === undefined) {
      pending = lookup(key, network, blockHash, Number(index))
      inFlight.set(key, pending)
      const settled = () => inFlight.delete(key)
      pending.then(settled, settled)
    }
    const json = await pending
    return json === null ? null : rawJson(json)
  }
}
