import type { HashedHeader, Hex } from './header.js'
import { headerFields } from './header.js'
import { uncleSize } from './uncleSize.js'

// Domain → wire, as geth marshals blocks: a Go map, so keys come out in byte order;
// quantities minimal hex, byte strings lowercase hex of their exact length.

/** A quantity as JSON-RPC wants it: `0x0`, `0x1b4`, never leading zeros. */
export function toQuantity(value: bigint | number): Hex {
  return `0x${value.toString(16)}`
}

// Note: a header has one of a few shapes (fork fields present, totalDifficulty or not), so each
// shape's sorted key order is computed once instead of sorting ~25 keys per answer.
const sortedKeyOrders = new Map<string, readonly string[]>()

function sortKeys(fields: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(fields)
  const shape = keys.join(',')
  let order = sortedKeyOrders.get(shape)
  if (order === undefined) {
    order = keys.sort()
    sortedKeyOrders.set(shape, order)
  }
  const sorted: Record<string, unknown> = {}
  for (const key of order) sorted[key] = fields[key]
  return sorted
}

/** The header's own fields in wire form (what geth's `RPCMarshalHeader` emits, minus `size`). */
export function toRpcHeaderFields(header: HashedHeader): Record<string, Hex> {
  const fields: Record<string, Hex> = { hash: header.hash }
  for (const [name, kind] of headerFields) {
    const value = header[name]
    if (value === undefined) continue
    fields[name] = kind === 'quantity' ? toQuantity(value as bigint) : (value as Hex)
  }
  return fields
}

export type ToRpcUncleOptions = {
  /**
   * `omit`: geth ≥ v1.9.10 (the derived fixtures). `null`: our wire contract, as in
   * Infura's documented sample response.
   */
  totalDifficulty: 'omit' | 'null'
}

/**
 * An uncle header as `eth_getUncleByBlockHashAndIndex` returns it: the header fields,
 * `size` of `[header, [], []]`, `uncles: []`, keys sorted, no `transactions`.
 */
export function toRpcUncle(uncle: HashedHeader, options: ToRpcUncleOptions, size = uncleSize(uncle)): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...toRpcHeaderFields(uncle), size: toQuantity(size), uncles: [] }
  if (options.totalDifficulty === 'null') fields.totalDifficulty = null
  return sortKeys(fields)
}

export type ToRpcBlockParameters = {
  /** RLP length of `[header, transactions, uncles]`. */
  size: number
  /** Included when known (geth v1.9.10–v1.14.10 always sends it for blocks). */
  totalDifficulty?: bigint | undefined
  transactionHashes: readonly Hex[]
  uncleHashes: readonly Hex[]
}

/** A block as `eth_getBlockByHash(h, false)` returns it in geth v1.13. */
export function toRpcBlock(block: HashedHeader, params: ToRpcBlockParameters): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    ...toRpcHeaderFields(block),
    size: toQuantity(params.size),
    transactions: params.transactionHashes,
    uncles: params.uncleHashes,
  }
  if (params.totalDifficulty !== undefined) fields.totalDifficulty = toQuantity(params.totalDifficulty)
  return sortKeys(fields)
}
