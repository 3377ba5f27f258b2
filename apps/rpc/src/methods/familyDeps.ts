import type { Hex } from '@uncle-rpc/chain'
import type { BlockUncleCount } from '@uncle-rpc/db/chain'
import type { AnswerCache } from '../reads/cache.js'
import type { UncleMethodDeps } from './eth_getUncleByBlockHashAndIndex.js'
import type { FamilyReads } from './familyReads.js'

/** The indexed block with this hash (canonical or not); null when not indexed. */
export type BlockByHash = (params: { network: string; blockHash: Hex }) => Promise<BlockUncleCount | null>
/** The canonical indexed block at this height; null when the height is not indexed. */
export type CanonicalBlock = (params: { network: string; number: bigint }) => Promise<BlockUncleCount | null>

/** What the uncle family's methods read through, beside eth_getUncleByBlockHashAndIndex's own deps. */
export type UncleFamilyDeps = UncleMethodDeps & {
  blockByHash: BlockByHash
  canonicalBlock: CanonicalBlock
  /**
   * Answers by block number (key: the number's quantity): dropped whenever the index records a
   * reorg (byNumberCache.ts), since a height's block may change where a hash's never does.
   */
  numberCache: AnswerCache
  reads: FamilyReads
}

const utf8 = new TextEncoder()

/** The answer as bytes when the cache keeps it (then it is cached), else as text. */
export function keepIfDeep(
  deps: Pick<UncleFamilyDeps, 'latest'>,
  cache: AnswerCache,
  at: { network: { name: string; confirmations: number }; key: string; index: string; blockNumber: bigint },
  text: string,
): string | Uint8Array {
  const head = deps.latest(at.network.name)
  if (!cache.enabled || head === null || at.blockNumber + BigInt(at.network.confirmations) > head) return text
  const json = utf8.encode(text)
  cache.set(at.network.name, at.key, at.index, json)
  return json
}
