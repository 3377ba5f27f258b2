import type { JsonRpcMethods } from '@uncle-rpc/jsonrpc'
import { ethChainId, netVersion } from './chainId.js'
import type { MethodContext } from './context.js'
import { createGetUncleByBlockHashAndIndex } from './eth_getUncleByBlockHashAndIndex.js'
import { createGetUncleByBlockNumberAndIndex } from './eth_getUncleByBlockNumberAndIndex.js'
import { createGetUncleCountByBlockHash } from './eth_getUncleCountByBlockHash.js'
import { createGetUncleCountByBlockNumber } from './eth_getUncleCountByBlockNumber.js'
import type { UncleFamilyDeps } from './familyDeps.js'

/** The method registry: wire name → implementation. Names are case-sensitive (geth: -32601 otherwise). */
export function createMethods(deps: UncleFamilyDeps): JsonRpcMethods<MethodContext> {
  return {
    eth_getUncleByBlockHashAndIndex: createGetUncleByBlockHashAndIndex(deps),
    eth_getUncleByBlockNumberAndIndex: createGetUncleByBlockNumberAndIndex(deps),
    eth_getUncleCountByBlockHash: createGetUncleCountByBlockHash(deps),
    eth_getUncleCountByBlockNumber: createGetUncleCountByBlockNumber(deps),
    eth_chainId: ethChainId,
    net_version: netVersion,
  }
}
