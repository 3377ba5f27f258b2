import { endpointUrls, networkBaseUrl } from '@uncle-rpc/config'

/** One network's endpoints for a key. */
export type Endpoint = { network: string; http: string; ws: string }

/**
 * The HTTP and WebSocket URLs of `key` on each network: under the network's `publicUrl` when the
 * config gives one (`https://mainnet.rpc.example.com/v3/<key>`), else under the RPC service's public
 * base URL by path (`https://rpc.example.com/<network>/v3/<key>` and `wss://…/<network>/ws/v3/<key>`).
 */
export function endpointsFor(rpcUrl: string, networks: readonly string[], key: string, publicUrls: ReadonlyMap<string, string> = new Map()): Endpoint[] {
  return networks.map((network) => ({ network, ...endpointUrls(networkBaseUrl({ name: network, publicUrl: publicUrls.get(network) }, rpcUrl, true), key) }))
}
