import { JsonRpcError, positionalParams, type RawJson, rawJson } from '@uncle-rpc/jsonrpc'
import type { MethodContext } from './context.js'

// `eth_chainId` and `net_version`, which clients ask before anything else (viem's getChainId,
// ethers' network detection): answered from the network's configured chainId, as geth does
// (quantity for eth_chainId, decimal string for net_version), with no database read.

const answers = new Map<number, { chainId: RawJson; version: RawJson }>()

function answersFor(chainId: number) {
  let found = answers.get(chainId)
  if (found === undefined) {
    found = { chainId: rawJson(`"0x${chainId.toString(16)}"`), version: rawJson(`"${chainId}"`) }
    answers.set(chainId, found)
  }
  return found
}

function configured(context: MethodContext) {
  const { chainId, name } = context.network
  if (chainId === undefined) throw new JsonRpcError(-32000, `network ${name} has no chainId configured`)
  return answersFor(chainId)
}

/** `eth_chainId()`: the configured chain id as a quantity. */
export function ethChainId(params: unknown, context: MethodContext): RawJson {
  positionalParams<[]>(params, [])
  return configured(context).chainId
}

/** `net_version()`: the configured chain id in decimal, as a string. */
export function netVersion(params: unknown, context: MethodContext): RawJson {
  positionalParams<[]>(params, [])
  return configured(context).version
}
