import type { JsonRpcMethods } from '@uncle-rpc/jsonrpc'
import type { MethodContext } from './context.js'

/**
 * The registry with each method telling `onCall` its network and wire name before it runs (metrics:
 * calls by method). Only the registry's names reach `onCall`, so the label values stay bounded.
 */
export function countCalls(methods: JsonRpcMethods<MethodContext>, onCall: (network: string, method: string) => void): JsonRpcMethods<MethodContext> {
  const counted: Record<string, JsonRpcMethods<MethodContext>[string]> = {}
  for (const [name, method] of Object.entries(methods))
    counted[name] = (params, context) => {
      onCall(context.network.name, name)
      return method(params, context)
    }
  return counted
}
