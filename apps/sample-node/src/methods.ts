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
  const { chain, tamperBlock } = parameters
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
  const formatUncle = (block: ChainBlock | undefined, index: bigint) => {
    if (block === undefined || index >= BigInt(block.uncles.length)) return null
    const i = Number(index)
    return toRpcUncle(block.uncles[i] as HashedHeader, { totalDifficulty: 'omit' }, block.uncleSizes?.[i])
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
