import { BaseError } from '@uncle-rpc/errors'
import {
  BlockVerificationError,
  type HashedHeader,
  type Hex,
  quantityFromRpc,
  rpcHeaderWithRlp,
  toQuantity,
  uncleSizeFromRlpLength,
  verifyBlock,
} from '@uncle-rpc/chain'
import { NodeAnswerError, type RejectedBlock } from '../errors.js'
import type { Settled, Upstream } from '../upstream/createUpstream.js'
import { UpstreamError } from '../upstream/errors.js'
import { worstFailure } from '../upstream/requestMany.js'

/** A block and its uncles, fetched from the node and verified against their hashes. */
export type VerifiedBlock = {
  header: HashedHeader
  totalDifficulty: bigint | undefined
  uncles: (HashedHeader & { size: number })[]
}

export type { RejectedBlock }

export type FetchRangeResult = {
  blocks: VerifiedBlock[]
  rejected: RejectedBlock[]
  /**
   * Blocks this pass did not get (the node did not answer for them or for one of their uncles:
   * a timeout, 5xx, 429…), and why: the job that asked fetches them again on its next attempt.
   */
  unfetched: { blocks: (bigint | Hex)[]; reason: string } | undefined
}

/** Throws UpstreamError (transient: the job's next attempt) when `result` misses blocks; for callers that need all of them. */
export function requireFetched(network: string, result: FetchRangeResult): FetchRangeResult {
  if (result.unfetched !== undefined) throw unfetchedError(network, result.unfetched)
  return result
}

/** The error a job attempt fails with for blocks the node did not answer for. */
export function unfetchedError(network: string, unfetched: NonNullable<FetchRangeResult['unfetched']>): UpstreamError {
  const first = unfetched.blocks.slice(0, 8).join(', ')
  return new UpstreamError(
    `${network}: ${unfetched.blocks.length} block(s) not fetched (${unfetched.reason}): ${first}${unfetched.blocks.length > 8 ? ', …' : ''}`,
  )
}

type RpcBlock = Record<string, unknown> & { uncles?: unknown; totalDifficulty?: unknown; size?: unknown }

function asError(label: bigint | Hex, error: unknown): BaseError {
  if (error instanceof BaseError) return error
  return new NodeAnswerError(`Block ${label}: unreadable answer from the node`, { cause: error })
}

/** What a block request must return: the block at this number, or with this hash. */
type Expected = { number: bigint; hash?: undefined } | { number?: bigint | undefined; hash: Hex }

/**
 * Fetches blocks `numbers` and all their uncles (`eth_getBlockByNumber` and
 * `eth_getUncleByBlockHashAndIndex`, batched) and verifies each block with its uncles:
 * hashes recompute, sha3Uncles matches, the node's uncle `size` matches ours, and each block
 * has the number asked for. Blocks that fail are returned as `rejected`, never as data; blocks
 * the node did not answer for in this one pass, as `unfetched`.
 */
export async function fetchRange(upstream: Upstream, numbers: readonly bigint[]): Promise<FetchRangeResult> {
  return fetchVerified(
    upstream,
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [toQuantity(n), false] })),
    numbers.map((number) => ({ number })),
  )
}

/**
 * {@link fetchRange} by block hash (`eth_getBlockByHash`): for walking a branch back to its
 * fork point. A block whose hash (or `number`, when given) is not the one asked for is rejected.
 */
export async function fetchBlocksByHash(
  upstream: Upstream,
  wanted: readonly { hash: Hex; number?: bigint | undefined }[],
): Promise<FetchRangeResult> {
  return fetchVerified(
    upstream,
    wanted.map((w) => ({ method: 'eth_getBlockByHash', params: [w.hash, false] })),
    wanted,
  )
}

async function fetchVerified(
  upstream: Upstream,
  requests: { method: string; params: unknown[] }[],
  expected: readonly Expected[],
): Promise<FetchRangeResult> {
  const isObject = (r: unknown) => typeof r === 'object' && r !== null
  const settledBlocks = await upstream.requestMany<RpcBlock>(requests, isObject)
  const rejected: RejectedBlock[] = []
  const unfetched: (bigint | Hex)[] = []
  const parsed: { number: bigint; header: HashedHeader; rlp: Uint8Array; uncleHashes: Hex[]; td: bigint | undefined }[] = []
  settledBlocks.forEach((settled, i) => {
    const want = expected[i] as Expected
    const label: bigint | Hex = want.number ?? (want.hash as Hex)
    if (!settled.ok) return void unfetched.push(label)
    const raw = settled.result
    let number = want.number ?? -1n
    try {
      const { header, rlp } = rpcHeaderWithRlp(raw)
      number = header.number
      if (want.number !== undefined && header.number !== want.number)
        throw new NodeAnswerError(`Block ${want.number}: the node answered block ${header.number} instead`)
      if (want.hash !== undefined && header.hash !== want.hash.toLowerCase())
        throw new NodeAnswerError(`Block ${want.hash}: the node answered block ${header.hash} instead`)
      if (!Array.isArray(raw.uncles) || !raw.uncles.every((u) => typeof u === 'string'))
        throw new NodeAnswerError(`Block ${label} (${header.hash}): "uncles" is not a list of hashes`)
      const td = raw.totalDifficulty === undefined || raw.totalDifficulty === null ? undefined : quantityFromRpc('totalDifficulty', raw.totalDifficulty)
      parsed.push({ number, header, rlp, uncleHashes: raw.uncles as Hex[], td })
    } catch (error) {
      rejected.push({ number, error: asError(label, error) })
    }
  })

  const uncleRequests = parsed.flatMap((b) =>
    b.uncleHashes.map((_, index) => ({ method: 'eth_getUncleByBlockHashAndIndex', params: [b.header.hash, toQuantity(index)] })),
  )
  const settledUncles = await upstream.requestMany<Record<string, unknown>>(uncleRequests, isObject)

  const blocks: VerifiedBlock[] = []
  let cursor = 0
  for (const b of parsed) {
    const answers = settledUncles.slice(cursor, cursor + b.uncleHashes.length)
    cursor += b.uncleHashes.length
    if (!answers.every((a) => a.ok)) {
      unfetched.push(b.number)
      continue
    }
    const raws = answers.map((a) => (a as Settled<Record<string, unknown>> & { ok: true }).result)
    try {
      const read = raws.map(rpcHeaderWithRlp)
      const uncles = read.map(({ header: uncle, rlp }, index) => {
        const size = uncleSizeFromRlpLength(rlp.length)
        const claimed = (raws[index] as Record<string, unknown>).size
        if (claimed !== undefined && claimed !== toQuantity(size))
          throw new NodeAnswerError(
            `Block ${b.number} (${b.header.hash}): uncle ${index} size ${String(claimed)} is not ${toQuantity(size)}`,
          )
        return { ...uncle, size }
      })
      verifyBlock({ ...b.header, uncles: b.uncleHashes }, uncles, { block: b.rlp, uncles: read.map((r) => r.rlp) })
      blocks.push({ header: b.header, totalDifficulty: b.td, uncles })
    } catch (error) {
      rejected.push({ number: b.number, error: error instanceof BlockVerificationError ? error : asError(b.number, error) })
    }
  }
  const reason = worstFailure([...settledBlocks, ...settledUncles])?.reason ?? 'no answer'
  return { blocks, rejected, unfetched: unfetched.length > 0 ? { blocks: unfetched, reason } : undefined }
}
