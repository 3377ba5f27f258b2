import type { HashedHeader, Hex } from './header.js'
import { headerFields, requiredFieldCount } from './header.js'
import { uncleSize } from './uncleSize.js'

// Domain → wire, as geth marshals blocks: a Go map, so keys come out in byte order;
// quantities minimal hex, byte strings lowercase hex of their exact length.

/** A quantity as JSON-RPC wants it: `0x0`, `0x1b4`, never leading zeros. */
export function toQuantity(value: bigint | number): Hex {
  return `0x${value.toString(16)}`
}

// Every key a wire block or uncle can have, in byte order (geth marshals a Go map): objects are
// built by walking this list once, with no sort per answer.
const wireKeysInOrder = [...headerFields.map(([name]) => name), 'hash', 'size', 'totalDifficulty', 'transactions', 'uncles'].sort()

function sortKeys(fields: Record<string, unknown>): Record<string, unknown> {
  const sorted: Record<string, unknown> = {}
  for (const key of wireKeysInOrder) if (fields[key] !== undefined) sorted[key] = fields[key]
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

// Note: the keys whose values are quantities (written as minimal hex).
const quantityKeys = new Set<string>([...headerFields.filter(([, kind]) => kind === 'quantity').map(([name]) => name), 'size'])

/**
 * `JSON.stringify(toRpcUncle(uncle, options, size))`, written straight to text: no intermediate
 * objects (the cold path renders every uncle it reads). Domain byte strings are lowercase hex
 * and need no escaping.
 */
export function rpcUncleJson(uncle: HashedHeader, options: ToRpcUncleOptions, size = uncleSize(uncle)): string {
  let out = '{'
  for (const key of wireKeysInOrder) {
    let value: string
    if (key === 'transactions') continue
    if (key === 'size') value = `"${toQuantity(size)}"`
    else if (key === 'uncles') value = '[]'
    else if (key === 'totalDifficulty') {
      if (options.totalDifficulty === 'omit') continue
      value = 'null'
    } else {
      const field = uncle[key as keyof HashedHeader]
      if (field === undefined) continue
      value = quantityKeys.has(key) ? `"${toQuantity(field as bigint)}"` : `"${field as string}"`
    }
    out += `${out.length === 1 ? '' : ','}"${key}":${value}`
  }
  return `${out}}`
}

/**
 * One key of an uncle's JSON, in the order rpcUncleJson writes them: a stored value (a header
 * field, `hash` or `size`: a quantity as minimal hex, else lowercase hex bytes; `optional` ones
 * are left out when absent) or a fixed JSON value.
 */
export type UncleJsonPart = { key: string; field: keyof HashedHeader | 'size'; quantity: boolean; optional: boolean } | { key: string; json: string }

/**
 * The keys of rpcUncleJson's output, in its order, for whoever writes the same text another way
 * (the database writes it for the cold path: packages/db uncleAnswers).
 */
export function uncleJsonParts(options: ToRpcUncleOptions): readonly UncleJsonPart[] {
  const parts: UncleJsonPart[] = []
  for (const key of wireKeysInOrder) {
    if (key === 'transactions' || (key === 'totalDifficulty' && options.totalDifficulty === 'omit')) continue
    if (key === 'totalDifficulty') parts.push({ key, json: 'null' })
    else if (key === 'uncles') parts.push({ key, json: '[]' })
    else if (key === 'size' || key === 'hash') parts.push({ key, field: key, quantity: key === 'size', optional: false })
    else {
      const at = headerFields.findIndex(([name]) => name === key)
      parts.push({ key, field: key as keyof HashedHeader, quantity: headerFields[at]![1] === 'quantity', optional: at >= requiredFieldCount })
    }
  }
  return parts
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
