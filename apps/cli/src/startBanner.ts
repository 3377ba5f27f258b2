import { endpointUrls, type NetworkConfig, networkBaseUrl } from '@uncle-rpc/config'

// What `npm start` prints once everything answers: every network's addresses and a curl per
// network that answers from this machine. Pure: the caller gathers the facts.

/** A network of the config whose rpcUrl is the bundled sample node on `port` (127.0.0.1 or localhost, http). */
export function usesBundledNode(network: NetworkConfig, port: string): boolean {
  if (network.rpcUrl === undefined || port === '0') return false
  const u = new URL(network.rpcUrl)
  return u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === 'localhost') && u.port === port
}

export type BannerUncle = { blockNumber: number | bigint; blockHash: string; index: number }

export type BannerFacts = {
  networks: readonly NetworkConfig[]
  /** The names of the networks indexed from the bundled sample node. */
  sampleNode: ReadonlySet<string>
  /** The rpc's own address (`http://127.0.0.1:8545`). */
  rpcBase: string
  key: string
  keyCreated: boolean
  /** An uncle per network, by name (a network whose wait was interrupted has none). */
  uncles: ReadonlyMap<string, BannerUncle>
  dashboardUrl: string
  smtp: boolean
  metrics: { rpc: string; indexer: string }
  /** The networks config the processes run with, for `status`. */
  configPath: string
}

export function startBanner(facts: BannerFacts): string {
  const { networks, rpcBase, key } = facts
  const several = networks.length > 1
  const describe = (n: NetworkConfig) => `chain id ${n.chainId}${facts.sampleNode.has(n.name) ? ', the bundled sample node\'s synthetic chain' : ''}`
  const addresses = (n: NetworkConfig, indent: string) => {
    const { http, ws } = endpointUrls(networkBaseUrl(n, rpcBase, several), key)
    return [`${indent}HTTP       ${http}`, `${indent}WebSocket  ${ws}`]
  }
  const lines = ['']
  if (!several) {
    const [only] = networks as [NetworkConfig]
    lines.push(`uncle-rpc is running: network "${only.name}" (${describe(only)})`, ...addresses(only, '  '))
  } else {
    lines.push(`uncle-rpc is running: ${networks.length} networks`)
    for (const n of networks) lines.push(`  network "${n.name}" (${describe(n)})`, ...addresses(n, '    '))
  }
  lines.push(
    `  demo key   ${key} (plan growth, ${facts.keyCreated ? 'new' : 'kept from the last start'}; a new one after: npx uncle-rpc keys revoke <key>; all keys: npx uncle-rpc keys list)`,
    `  Dashboard  ${facts.dashboardUrl}  (sign up, create keys, see usage; ${facts.smtp ? 'emails via SMTP_URL' : 'without SMTP_URL its emails, links included, are in the log above'})`,
  )
  for (const n of networks) {
    const uncle = facts.uncles.get(n.name)
    if (uncle === undefined) continue
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getUncleByBlockHashAndIndex', params: [uncle.blockHash, `0x${uncle.index.toString(16)}`] })
    // Note: by this machine's address (the path names the network), so it answers whatever DNS says of publicUrl.
    const local = endpointUrls(networkBaseUrl({ name: n.name }, rpcBase, several), key).http
    lines.push('', `An uncle of block ${uncle.blockNumber} on "${n.name}" (${describe(n)}):`, `  curl -s -X POST -H 'Content-Type: application/json' --data '${body}' ${local}`)
  }
  lines.push(
    '',
    `Metrics (Prometheus): ${facts.metrics.rpc} (rpc), ${facts.metrics.indexer} (indexer)`,
    `Progress: npx uncle-rpc status --config ${facts.configPath}      Stop: Ctrl-C`,
    '',
  )
  return lines.join('\n')
}
