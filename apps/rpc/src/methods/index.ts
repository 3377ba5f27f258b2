import type { JsonRpcMethods } from '@uncle-rpc/jsonrpc'
import { ethChainId, netVersion } from './chainId.js'
import type { MethodContext } from './context.js'
import { createGetUncleByBlockHashAndIndex, type UncleMethodDeps } from './eth_getUncleByBlockHashAndIndex.js'

/** The method registry: wire name → implementation. Names are case-sensitive (geth: -32601 otherwise). */
export function createMethods(deps: UncleMethodDeps): JsonRpcMethods<MethodContext> {
  return {
    eth_getUncleByBlockHashAndIndex: createGetUncleByBlockHashAndIndex(deps),
    eth_chainId: ethChainId,
    net_version: netVersion,
  }
}
