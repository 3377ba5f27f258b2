import { type HashedHeader, type Hex, uncleSizeFromRlpLength } from '@uncle-rpc/chain'
import { createRng } from '../../rng.js'
import type { ChainBlock } from '../chainSource.js'
import type { GeneratedBlock, GeneratedHeader } from './generateBlock.js'

// Generated (byte) form → the domain form the RPC layer formats: done only for blocks
// somebody asks for, never during the startup pass over the whole chain.

/** Lowercase 0x-hex of bytes. */
export function toHex(bytes: Uint8Array): Hex {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`
}

// Blooms, miners and extraData are shared arrays from the chain's pools: convert each once.
const hexCache = new WeakMap<Uint8Array, Hex>()
function sharedHex(bytes: Uint8Array): Hex {
  let hex = hexCache.get(bytes)
  if (hex === undefined) {
    hex = toHex(bytes)
    hexCache.set(bytes, hex)
  }
  return hex
}

/** A generated header in domain form, with its hash. */
export function materializeHeader(header: GeneratedHeader): HashedHeader {
  const raw = header.raw
  const result: HashedHeader = {
    parentHash: toHex(raw.parentHash),
    sha3Uncles: sharedHex(raw.sha3Uncles),
    miner: sharedHex(raw.miner),
    stateRoot: toHex(raw.stateRoot),
    transactionsRoot: sharedHex(raw.transactionsRoot),
    receiptsRoot: sharedHex(raw.receiptsRoot),
    logsBloom: sharedHex(raw.logsBloom),
    difficulty: raw.difficulty,
    number: BigInt(raw.number),
    gasLimit: BigInt(raw.gasLimit),
    gasUsed: BigInt(raw.gasUsed),
    timestamp: BigInt(raw.timestamp),
    extraData: sharedHex(raw.extraData),
    mixHash: toHex(raw.mixHash),
    nonce: toHex(raw.nonce),
    hash: toHex(header.hash),
  }
  if (raw.baseFeePerGas !== undefined) result.baseFeePerGas = raw.baseFeePerGas
  return result
}

/**
 * The made-up hashes of a block's transactions (synthetic blocks carry a transaction
 * count, gas and size, but no transaction bodies).
 */
export function transactionHashes(seed: number, number: number, branch: number, count: number): Hex[] {
  if (count === 0) return []
  const rng = createRng(seed, number, branch, 3)
  const bytes = new Uint8Array(32 * count)
  rng.fill(bytes)
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
  return Array.from({ length: count }, (_, i) => `0x${hex.slice(i * 64, i * 64 + 64)}` as Hex)
}

/** A block held materialized in the segment cache (transaction hashes are made on request). */
export type MaterializedBlock = Omit<ChainBlock, 'transactionHashes'> & { branch: number; txCount: number }

/** Materializes a generated block and its uncles. */
export function materializeBlock(block: GeneratedBlock): MaterializedBlock {
  return {
    header: materializeHeader(block.header),
    uncles: block.uncles.map(materializeHeader),
    uncleSizes: block.uncles.map((uncle) => uncleSizeFromRlpLength(uncle.rlpLength)),
    totalDifficulty: block.totalDifficulty,
    size: block.size,
    branch: block.branch,
    txCount: block.txCount,
  }
}
