// docker/haproxy/haproxy.cfg made to run on loopback, for tests and benches that put real rpc
// processes behind HAProxy: the same file, with Docker's DNS discovery replaced by static servers.

export type LoopbackServer = {
  /** The rpc's port (traffic). */
  port: number
  /** The port HAProxy checks (the rpc's admin port, --metrics-port). */
  checkPort: number
}

/** haproxy.cfg for loopback: the listening ports given, static servers instead of server-template over Docker DNS. */
export function renderLoopbackConfig(config: string, ports: { rpc: number; stats: number }, servers: readonly LoopbackServer[]): string {
  const lines = servers.map((s, i) => `  server rpc${i + 1} 127.0.0.1:${s.port} port ${s.checkPort}`).join('\n')
  return config
    .replace(/^resolvers docker\n(?: {2}.*\n)+/m, '')
    .replace(/ init-addr none resolvers docker resolve-prefer ipv4$/gm, '')
    .replace(/^ {2}server-template rpc \d+ rpc:\d+$/gm, lines)
    .replace(/^ {2}bind :8545$/m, `  bind 127.0.0.1:${ports.rpc}`)
    .replace(/^ {2}bind :8404$/m, `  bind 127.0.0.1:${ports.stats}`)
}
