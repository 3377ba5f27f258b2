import { headerFields, type Hex, rpcHeaderWithRlp, toQuantity, uncleSizeFromRlpLength, verifyBlock } from '@uncle-rpc/chain'
import { BaseError } from '@uncle-rpc/errors'
import type { ForwardCall } from '../methods/failoverPolicy.js'

// A forwarded uncle call answered only when the partner proves it from the chain: in one batch,
// the nephew's header and its uncles at indexes 0 and 1 (a proof-of-work block includes at most
// two). The nephew's header must hash to the block asked for (or carry the number asked for), the
// RLP list of the uncle headers must hash to its sha3Uncles, and each uncle must hash to its own
// hash: verifyBlock, the check the indexer runs on what it writes (every fork's header fields).

/** One answer object of the partner's batch, as parsed: `{ result }` or `{ error }`. */
export type PartnerItem = { result: unknown } | { error: object }

/** What the proof says: the answer to give the caller (the partner's result or error), or why it failed. */
export type ProofOutcome = { kind: 'answer'; item: PartnerItem } | { kind: 'failed'; reason: string }

/** The partner calls that prove `call`, and the check of their answers (in the same order). */
export type PartnerProof = { calls: ForwardCall[]; check(items: readonly unknown[]): ProofOutcome }

const fetchedUncles = 2
// Keys an uncle answer may carry: its header fields, and the ones geth adds (totalDifficulty: geth ≤ v1.9.9, null).
const uncleKeys = new Set<string>([...headerFields.map(([name]) => name), 'hash', 'size', 'uncles', 'totalDifficulty'])

class ProofError extends BaseError {
  constructor(reason: string) {
    super(reason, { name: 'ProofError' })
  }
}

function asItem(value: unknown): PartnerItem {
  if (typeof value !== 'object' || value === null) throw new ProofError('an answer of the batch is missing or not an object')
  const item = value as Record<string, unknown>
  if (Object.hasOwn(item, 'result')) return { result: item.result }
  if (typeof item.error === 'object' && item.error !== null) return { error: item.error }
  throw new ProofError('an answer of the batch has neither result nor error')
}

function header(what: string, json: unknown) {
  try {
    return rpcHeaderWithRlp(json)
  } catch (error) {
    throw new ProofError(`${what}: ${(error as BaseError).shortMessage ?? 'not a header'}`)
  }
}

/** An uncle answer holds nothing its hash does not cover but what geth derives from it: size, `uncles: []`, totalDifficulty null. */
function checkUncleShape(index: number, json: Record<string, unknown>, rlpLength: number): void {
  for (const key of Object.keys(json)) if (!uncleKeys.has(key)) throw new ProofError(`uncle ${index} has a key no uncle answer has: ${key}`)
  if (json.size !== toQuantity(uncleSizeFromRlpLength(rlpLength))) throw new ProofError(`uncle ${index}'s size is not its RLP's`)
  if (!Array.isArray(json.uncles) || json.uncles.length !== 0) throw new ProofError(`uncle ${index}'s uncles is not []`)
  if (json.totalDifficulty !== undefined && json.totalDifficulty !== null) throw new ProofError(`uncle ${index}'s totalDifficulty is not null`)
}

function uncleHashList(nephew: Record<string, unknown>): Hex[] {
  const list = nephew.uncles
  if (!Array.isArray(list) || !list.every((h) => typeof h === 'string' && /^0x[0-9a-fA-F]{64}$/.test(h)))
    throw new ProofError('the block has no list of uncle hashes')
  if (list.length > fetchedUncles) throw new ProofError(`the block lists ${list.length} uncles (a proof-of-work block has at most ${fetchedUncles})`)
  return list as Hex[]
}

type Target = { by: 'hash'; hash: Hex } | { by: 'number'; block: string }

/**
 * Checks the partner's answers to a proof's calls: the nephew, then its uncles 0 and 1. Returns
 * the answer for the caller (`answer(count, uncles)`) once everything hashes as it should; a
 * JSON-RPC error of the partner is passed on, as the partner's answer.
 */
function checkProof(target: Target, items: readonly unknown[], answer: (count: number, uncles: readonly unknown[]) => unknown): ProofOutcome {
  try {
    const parsed = [0, 1, 2].map((k) => asItem(items[k]))
    const failedCall = parsed.find((item) => 'error' in item)
    if (failedCall !== undefined) return { kind: 'answer', item: failedCall }
    const [nephewJson, ...uncleJsons] = parsed.map((item) => (item as { result: unknown }).result)
    if (nephewJson === null) {
      if (uncleJsons.some((u) => u !== null)) throw new ProofError('uncles of a block the partner says it does not have')
      return { kind: 'answer', item: { result: null } }
    }
    const nephew = header('the block', nephewJson)
    if (target.by === 'hash' && nephew.header.hash !== target.hash.toLowerCase()) throw new ProofError('the block is not the one asked for')
    if (target.by === 'number' && target.block.startsWith('0x') && nephew.header.number !== BigInt(target.block))
      throw new ProofError('the block is not at the height asked for')
    const listed = uncleHashList(nephewJson as Record<string, unknown>)
    const uncles = uncleJsons.map((json, index) => {
      if (index >= listed.length) {
        if (json !== null) throw new ProofError(`uncle ${index} of a block that lists ${listed.length}`)
        return undefined
      }
      const uncle = header(`uncle ${index}`, json)
      checkUncleShape(index, json as Record<string, unknown>, uncle.rlp.length)
      return uncle
    })
    const present = uncles.filter((u) => u !== undefined)
    verifyBlock(
      { ...nephew.header, uncles: listed },
      present.map((u) => u.header),
      { block: nephew.rlp, uncles: present.map((u) => u.rlp) },
    )
    return { kind: 'answer', item: { result: answer(listed.length, uncleJsons) } }
  } catch (error) {
    if (error instanceof BaseError) return { kind: 'failed', reason: error.shortMessage }
    throw error
  }
}

const indexes = Array.from({ length: fetchedUncles }, (_, i) => toQuantity(i))

/**
 * The proof of a forwarded uncle-family call (eth_getUncleByBlockHashAndIndex,
 * eth_getUncleByBlockNumberAndIndex, eth_getUncleCountByBlockHash, eth_getUncleCountByBlockNumber;
 * params normalized by the method); undefined for any other call.
 */
export function partnerProof(call: ForwardCall): PartnerProof | undefined {
  const [block, index] = call.params as [string, string | undefined]
  const byHash = call.method === 'eth_getUncleByBlockHashAndIndex' || call.method === 'eth_getUncleCountByBlockHash'
  const byNumber = call.method === 'eth_getUncleByBlockNumberAndIndex' || call.method === 'eth_getUncleCountByBlockNumber'
  if (!byHash && !byNumber) return undefined
  const calls: ForwardCall[] = [
    { method: byHash ? 'eth_getBlockByHash' : 'eth_getBlockByNumber', params: [block, false] },
    ...indexes.map((i) => ({ method: byHash ? 'eth_getUncleByBlockHashAndIndex' : 'eth_getUncleByBlockNumberAndIndex', params: [block, i] })),
  ]
  const target: Target = byHash ? { by: 'hash', hash: block as Hex } : { by: 'number', block }
  const answer =
    index === undefined
      ? (count: number) => toQuantity(count)
      : (count: number, uncles: readonly unknown[]) => {
          const i = BigInt(index)
          return i < BigInt(count) ? uncles[Number(i)] : null
        }
  return { calls, check: (items) => checkProof(target, items, answer) }
}
