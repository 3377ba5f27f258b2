// The addresses users call, in one place for the dashboard, `npm start`'s banner and the rpc's
// listening line: a network's `publicUrl` when it has one, else the rpc's own base.

/** A key's HTTP and WebSocket addresses under a base URL (`https://x.example.com` → `…/v3/<key>`, `wss://x.example.com/ws/v3/<key>`). */
export function endpointUrls(base: string, key: string): { http: string; ws: string } {
  const http = base.replace(/\/+$/, '')
  return { http: `${http}/v3/${key}`, ws: `${http.replace(/^http/i, 'ws')}/ws/v3/${key}` }
}

/**
 * The base URL users call for a network: its `publicUrl`; else `rpcBase` followed by
 * `/<network>` when `byPath` (several networks on one address), or `rpcBase` alone.
 */
export function networkBaseUrl(network: Readonly<{ name: string; publicUrl?: string | undefined }>, rpcBase: string, byPath: boolean): string {
  if (network.publicUrl !== undefined) return network.publicUrl.replace(/\/+$/, '')
  const base = rpcBase.replace(/\/+$/, '')
  return byPath ? `${base}/${encodeURIComponent(network.name)}` : base
}
