import { type BlockTag, JsonRpcError } from '@uncle-rpc/jsonrpc'

// What a block parameter (a number or a tag, decoded as geth's rpc.BlockNumber) names in the index.

/**
 * The height a block parameter names: a number as it is, `earliest` 0, `latest` the latest
 * indexed block (null while none is known). The index holds sealed blocks only and follows no
 * beacon chain, so, as geth on a chain without them (eth/api_backend.go BlockByNumber), `pending`
 * is -32000 `pending block is not available`, `safe` -32000 `safe block not found` and
 * `finalized` -32000 `finalized block not found`.
 */
export function blockHeight(block: bigint | BlockTag, latest: bigint | null): bigint | null {
  if (typeof block === 'bigint') return block
  switch (block) {
    case 'earliest':
      return 0n
    case 'latest':
      return latest
    case 'pending':
      throw new JsonRpcError(-32000, 'pending block is not available')
    case 'safe':
      throw new JsonRpcError(-32000, 'safe block not found')
    case 'finalized':
      throw new JsonRpcError(-32000, 'finalized block not found')
  }
}
