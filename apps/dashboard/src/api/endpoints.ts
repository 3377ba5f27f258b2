/** One network's endpoints for a key. */
export type Endpoint = { network: string; http: string; ws: string }

/**
 * The HTTP and WebSocket URLs of `key` on each network, under the RPC service's public base URL
 * (`https://rpc.example.com` → `https://rpc.example.com/<network>/v3/<key>` and `wss://…/<network>/ws/v3/<key>`).
 */
export function endpointsFor(rpcUrl: string, networks: readonly string[], key: string): Endpoint[] {
  const base = rpcUrl.replace(/\/+$/, '')
  const wsBase = base.replace(/^http/i, 'ws')
  return networks.map((network) => ({
    network,
    http: `${base}/${encodeURIComponent(network)}/v3/${key}`,
    ws: `${wsBase}/${encodeURIComponent(network)}/ws/v3/${key}`,
  }))
}
