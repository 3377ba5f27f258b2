import { type HashedHeader, type Hex, toQuantity, toRpcBlock, toRpcUncle } from '@uncle-rpc/chain'
import {
  type BlockTag,
  decodeBlockNumberOrTag,
  decodeBool,
  decodeHash,
  decodeUint,
  type JsonRpcMethods,
  positionalParams,
} from '@uncle-rpc/jsonrpc'
import type { ChainBlock, ChainSource } from './sources/chainSource.js'

export type CreateMethodsParameters = {
  chain: ChainSource
  /** Serve this block with its stateRoot changed but its original hash (verification must fail). */
  tamperBlock?: bigint | undefined
  /** Serve this block's uncles with a changed stateRoot but their original hashes (a partner that lies). */
  tamperUncles?: bigint | undefined
  /** Serve, as this block's uncles, the real uncles of the next block that has some (a partner that lies). */
  swapUncles?: bigint | undefined
  /** `safe` is the head minus this many blocks (default 32). */
  safeDepth?: number | undefined
  /** `finalized` is the head minus this many blocks (default 64). */
  finalizedDepth?: number | undefined
}

function tamper(header: HashedHeader): HashedHeader {
  // Note: flip the last hex digit of stateRoot; the hash stays the original one.
  const last = header.stateRoot.at(-1) === '0' ? '1' : '0'
  return { ...header, stateRoot: `${header.stateRoot.slice(0, -1)}${last}` as Hex }
}

/**
 * The geth-compatible methods of the sample node (geth v1.13 shapes: blocks carry
 * totalDifficulty, uncles do not; `fullTx = true` also answers with transaction hashes,
 * since synthetic blocks have no bodies). Not found → null, as geth.
 */
export function createMethods(parameters: CreateMethodsParameters): JsonRpcMethods<unknown> {
  const { chain, tamperBlock, tamperUncles, swapUncles } = parameters
  const safeDepth = BigInt(parameters.safeDepth ?? 32)
  const finalizedDepth = BigInt(parameters.finalizedDepth ?? 64)

  const resolve = (tagOrNumber: bigint | BlockTag): bigint => {
    if (typeof tagOrNumber === 'bigint') return tagOrNumber
    const head = chain.head()
    const below = (depth: bigint) => (head > depth ? head - depth : 0n)
    switch (tagOrNumber) {
      case 'earliest':
        return 0n
      case 'safe':
        return below(safeDepth)
      case 'finalized':
        return below(finalizedDepth)
      default:
        // latest, and pending (a sample node has no pending block)
        return head
    }
  }
  const byNumber = (tagOrNumber: bigint | BlockTag) => chain.blockByNumber(resolve(tagOrNumber))

  const formatBlock = (block: ChainBlock | undefined) => {
    if (block === undefined) return null
    const header = block.header.number === tamperBlock ? tamper(block.header) : block.header
    return toRpcBlock(header, {
      size: block.size,
      totalDifficulty: block.totalDifficulty,
      transactionHashes: block.transactionHashes,
      uncleHashes: block.uncles.map((uncle) => uncle.hash),
    })
  }
  /** The next block above `number` that has uncles (within 10,000 blocks). */
  const nextWithUncles = (number: bigint): ChainBlock | undefined => {
    for (let n = number + 1n; n <= number + 10_000n; n++) {
      const block = chain.blockByNumber(n)
      if (block === undefined) return undefined
      if (block.uncles.length > 0) return block
    }
    return undefined
  }
  const formatUncle = (asked: ChainBlock | undefined, index: bigint) => {
    const block = asked !== undefined && asked.header.number === swapUncles ? nextWithUncles(swapUncles) : asked
    if (block === undefined || index >= BigInt(block.uncles.length)) return null
    const i = Number(index)
    const uncle = block.uncles[i] as HashedHeader
    return toRpcUncle(asked?.header.number === tamperUncles ? tamper(uncle) : uncle, { totalDifficulty: 'omit' }, block.uncleSizes?.[i])
  }
  const uncleCount = (block: ChainBlock | undefined) => (block === undefined ? null : toQuantity(block.uncles.length))

  return {
    eth_chainId: (params) => {
      positionalParams<[]>(params, [])
      return toQuantity(chain.chainId)
    },
    net_version: (params) => {
      positionalParams<[]>(params, [])
      return chain.chainId.toString()
    },
    eth_blockNumber: (params) => {
      positionalParams<[]>(params, [])
      return toQuantity(chain.head())
    },
    eth_getBlockByNumber: (params) => {
      const [number] = positionalParams(params, [decodeBlockNumberOrTag, decodeBool])
      return formatBlock(byNumber(number))
    },
    eth_getBlockByHash: (params) => {
      const [hash] = positionalParams(params, [decodeHash, decodeBool])
      return formatBlock(chain.blockByHash(hash))
    },
    eth_getUncleByBlockHashAndIndex: (params) => {
      const [hash, index] = positionalParams(params, [decodeHash, decodeUint])
      return formatUncle(chain.blockByHash(hash), index)
    },
    eth_getUncleByBlockNumberAndIndex: (params) => {
      const [number, index] = positionalParams(params, [decodeBlockNumberOrTag, decodeUint])
      return formatUncle(byNumber(number), index)
    },
    eth_getUncleCountByBlockHash: (params) => {
      const [hash] = positionalParams(params, [decodeHash])
      return uncleCount(chain.blockByHash(hash))
    },
    eth_getUncleCountByBlockNumber: (params) => {
      const [number] = positionalParams(params, [decodeBlockNumberOrTag])
      return uncleCount(byNumber(number))
    },
  }
}
