import { type Hex, toQuantity } from '@uncle-rpc/chain'
import { storedUncleIndex } from '@uncle-rpc/db/chain'
import { decodeHash, decodeUint, positionalParams, type RawJson, rawJson } from '@uncle-rpc/jsonrpc'
import type { AnswerCache } from '../reads/cache.js'
import { type FailoverPolicy, type ForwardCall, IndexUnavailableError } from './failoverPolicy.js'
import { createDeadline, createReadGate, type ReadGate, readPauseMs, ReadsPausedError } from '../protection/readStallGuard.js'
import { type BlockKnown, type FindUncle, LookupCancel, type MethodContext, type ServedNetwork } from './context.js'
import { createInFlightLookups, type InFlightKey } from './inFlightLookups.js'

export type UncleMethodDeps = {
  findUncle: FindUncle
  /** Asked only for keys whose calls may be forwarded; without it a null answer is taken as authoritative. */
  blockKnown?: BlockKnown | undefined
  cache: AnswerCache
  /** Latest indexed block of a network, or null when unknown. */
  latest: (network: string) => bigint | null
  /** A database read fails after this long without any read completing (4× in all); see createDeadline. Default 250 ms. */
  deadlineMs?: number | undefined
  /** The gate of every database read of the methods (readStallGuard.ts), shared so a read elsewhere that succeeds can close it; default one of its own. */
  gate?: ReadGate | undefined
  /** Told about every failed or late database read (the caller rate-limits its logging). */
  onLocalFailure?: ((error: unknown) => void) | undefined
  /** True when a block certainly has no uncles indexed (uncleFilter.ts): answered null without a read. */
  absent?: ((network: string, blockHash: Hex) => boolean) | undefined
}

export const defaultDeadlineMs = 250

const utf8 = new TextEncoder()

/**
 * `eth_getUncleByBlockHashAndIndex(blockHash, index)`: params decoded as geth does (-32602 with
 * its messages), `null` when the block or index is unknown. Found answers from blocks at least
 * `confirmations` below the network's latest indexed block are cached; null answers never are
 * (the block may be indexed later). A failed or late database read throws the context's
 * IndexUnavailableError; with a `forward` policy, it and a null for an unindexed block are recorded for the partner.
 */
export function createGetUncleByBlockHashAndIndex(deps: UncleMethodDeps) {
  const { findUncle, blockKnown, cache, latest, deadlineMs = defaultDeadlineMs, onLocalFailure, absent } = deps
  const withDeadline = createDeadline(deadlineMs)
  const gate = deps.gate ?? createReadGate({ cooldownMs: readPauseMs(deadlineMs) })
  const paused = new ReadsPausedError(readPauseMs(deadlineMs))
  // Lookups in flight by network, hash and index: identical concurrent requests share one query
  // (and one serialization), so a burst for a new block costs Postgres one lookup. Entries leave when
  // settled, or when every request waiting for one has given up (its lookup is then dropped if not sent yet).
  // `resumed` is the gate's when the lookup began: a request that joins it reports its failure as the lookup's.
  const inFlight = createInFlightLookups<InFlightKey & { answer: Promise<string | Uint8Array | null>; waiters: number; abort: LookupCancel; resumed: number }>()

  /** The answer's JSON: its UTF-8 bytes when the cache keeps it, else the text (written straight into the response). */
  async function lookup(network: ServedNetwork, blockHash: Hex, quantity: string, index: number, cancel: LookupCancel): Promise<string | Uint8Array | null> {
    const found = await findUncle({ network: network.name, blockHash, index, cancel })
    if (found === null) return null
    const text = found.json
    const head = latest(network.name)
    if (!cache.enabled || head === null || found.blockNumber + BigInt(network.confirmations) > head) return text
    // Note: TextEncoder's array is the answer's own (Buffer.from would share an 8 KB pool slab, which a cached entry would keep alive).
    const json = utf8.encode(text)
    cache.set(network.name, blockHash, quantity, json)
    return json
  }

  const forwardCall = (blockHash: Hex, index: bigint): ForwardCall => ({
    method: 'eth_getUncleByBlockHashAndIndex',
    params: [blockHash, toQuantity(index)],
  })

  /** The index could not answer: forward (when the policy says so) and return the policy's error to throw. */
  function unavailable(failover: FailoverPolicy | undefined, blockHash: Hex, index: bigint, error: unknown): unknown {
    onLocalFailure?.(error)
    if (failover === undefined) return error
    if (failover.kind === 'forward') failover.need(forwardCall(blockHash, index))
    return new IndexUnavailableError(failover.kind, { cause: error })
  }

  /** A null answer stands unless the call may be forwarded and the block is not indexed. */
  async function checkNull(context: MethodContext, blockHash: Hex, index: bigint): Promise<null> {
    const { failover } = context
    if (failover?.kind !== 'forward' || blockKnown === undefined) return null
    if (!gate.admit()) throw unavailable(failover, blockHash, index, paused)
    const resumed = gate.resumed
    let known: boolean
    try {
      known = await withDeadline(blockKnown({ network: context.network.name, blockHash }))
      gate.succeeded()
    } catch (error) {
      gate.failed(resumed)
      throw unavailable(failover, blockHash, index, error)
    }
    if (!known) failover.need(forwardCall(blockHash, index))
    return null
  }

  async function read(context: MethodContext, blockHash: Hex, quantity: string, index: bigint, stored: number): Promise<RawJson | null> {
    const network = context.network.name
    let shared = inFlight.find(network, blockHash, quantity)
    if (shared === undefined) {
      if (!gate.admit()) throw unavailable(context.failover, blockHash, index, paused)
      const abort = new LookupCancel()
      const entry = { network, blockHash, quantity, answer: lookup(context.network, blockHash, quantity, stored, abort), waiters: 0, abort, resumed: gate.resumed }
      if (inFlight.add(entry)) {
        const settled = () => inFlight.remove(entry)
        entry.answer.then(settled, settled)
      }
      shared = entry
    }
    shared.waiters++
    let json: string | Uint8Array | null
    try {
      json = await withDeadline(shared.answer)
      gate.succeeded()
    } catch (error) {
      gate.failed(shared.resumed)
      // Note: the last request to give up drops the lookup, so a queue of lookups nobody waits for is not sent.
      if (--shared.waiters === 0) {
        inFlight.remove(shared)
        shared.abort.abort(error)
      }
      throw unavailable(context.failover, blockHash, index, error)
    }
    return json === null ? checkNull(context, blockHash, index) : rawJson(json)
  }

  // Note: not async: a cached answer is returned as a value (the dispatcher then answers without a promise).
  return (params: unknown, context: MethodContext): RawJson | null | Promise<RawJson | null> => {
    // Note: params whose text is a cached answer's key (a lowercase hash and a canonical index, as
    // clients mostly send them) are answered before any decoding: only decoded params ever make a
    // key, so such text is valid and decodes to itself.
    let lookedUp = false
    // (Text of a hash's length only: other text is an error or a spelling to decode, not a lookup.)
    if (Array.isArray(params) && params.length === 2 && typeof params[0] === 'string' && params[0].length === 66 && typeof params[1] === 'string') {
      lookedUp = true
      const hit = cache.get(context.network.name, params[0], params[1])
      if (hit !== undefined) return rawJson(hit)
    }
    let blockHash: Hex
    let index: bigint
    try {
      ;[blockHash, index] = positionalParams<[Hex, bigint]>(params, [decodeHash, decodeUint])
    } catch (error) {
      // Note: bad params reject, as they did when this function was async.
      return Promise.reject(error as Error)
    }
    // Note: an index no stored row can have answers null without a read (geth: null).
    const stored = storedUncleIndex(index)
    if (stored === null) return checkNull(context, blockHash, index)
    const quantity = toQuantity(index)
    // Note: the same key as the text's was looked up already.
    const sameText = lookedUp && (params as string[])[0] === blockHash && (params as string[])[1] === quantity
    const cached = sameText ? undefined : cache.get(context.network.name, blockHash, quantity)
    if (cached !== undefined) return rawJson(cached)
    if (absent?.(context.network.name, blockHash) === true)
      // Note: a value, not a promise, unless the call may be forwarded (checkNull then asks whether the block is indexed).
      return context.failover?.kind === 'forward' && blockKnown !== undefined ? checkNull(context, blockHash, index) : null
    return read(context, blockHash, quantity, index, stored)
  }
}
