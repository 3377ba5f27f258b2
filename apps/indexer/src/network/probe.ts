import type { NetworkConfig } from '@uncle-rpc/config'
import { ChainIdMismatchError } from '../errors.js'
import { createUpstream, type Upstream } from '../upstream/createUpstream.js'

/** A quick client for probes (chainId, head): short timeout, one request at a time, so a dead node costs seconds. */
export function createProbe(config: NetworkConfig & { rpcUrl: string }): Upstream {
  return createUpstream({ url: config.rpcUrl, timeoutMs: 5_000, maxInFlight: 1 })
}

/**
 * Asks the node for its chain id once: `'ok'`, or why it could not be asked. Throws
 * {@link ChainIdMismatchError} when it answers with another chain.
 */
export async function probeChainId(config: NetworkConfig, probe: Upstream | undefined): Promise<'ok' | { unreachable: string }> {
  if (!probe) return 'ok'
  let chainId: bigint
  try {
    chainId = await probe.chainId()
  } catch (error) {
    return { unreachable: error instanceof Error ? error.message : String(error) }
  }
  if (chainId !== BigInt(config.chainId)) throw new ChainIdMismatchError(config.name, config.chainId, chainId, 'the node')
  return 'ok'
}
