import { errorResponse, NotFoundError } from '@uncle-rpc/jsonrpc'
import type { ServedNetwork } from '../methods/context.js'

// The one place a request's network is decided, for HTTP (both paths) and WebSocket alike:
//   1. the path's `/<network>/…`, when it has one;
//   2. a single network: every host is that network;
//   3. a host name configured in a network's `hosts` (exact, case-insensitive, port ignored);
//   4. the Host's first label, among the networks that name no hosts (`mainnet.example.com` → mainnet).
// Anything else is a 404 that lists the addresses served.

/** A request no network answers: what was asked for, and the 404 body to send. */
export type NetworkMiss = Readonly<{ unknown: string; body: string }>

/** Picks the network of a request from the Host name or the path. */
export type NetworkResolver = {
  /** Known networks, by name. */
  readonly byName: ReadonlyMap<string, ServedNetwork>
  /** The network named by `name`, or undefined. */
  lookup(name: string): ServedNetwork | undefined
  /** The network a path's `/<network>/…` names, or the 404 naming it and listing the known ones. */
  fromPath(name: string): ServedNetwork | NetworkMiss
  /** The network a Host header addresses (rules 2–4 above), or the 404 listing the addresses served. */
  fromHost(host: string | undefined): ServedNetwork | NetworkMiss
}

const ipv4 = /^\d+\.\d+\.\d+\.\d+$/

/** The Host header's name: lowercased, without port or trailing dot; '' when absent. IPv6 literals keep their brackets. */
export function hostName(host: string | undefined): string {
  if (host === undefined || host === '') return ''
  const end = host.charCodeAt(0) === 91 ? host.indexOf(']') + 1 : host.lastIndexOf(':') // '[' = IPv6 literal
  const name = (end <= 0 ? host : host.slice(0, end)).toLowerCase()
  return name.endsWith('.') ? name.slice(0, -1) : name
}

/** The host name's first label, lowercased; undefined for IP literals and single-label hosts. */
export function hostLabel(host: string | undefined): string | undefined {
  const name = hostName(host)
  if (name === '' || name.charCodeAt(0) === 91) return undefined
  const dot = name.indexOf('.')
  if (dot === -1 || ipv4.test(name)) return undefined
  return name.slice(0, dot)
}

// Note: -32601 as the contract suggests: the "method" (this network's endpoint) does not exist here.
const notFound = (message: string) => errorResponse('null', new NotFoundError(message))

/** Builds the resolver over the configured networks (their hosts are unique: the config checks it). */
export function createNetworkResolver(networks: readonly ServedNetwork[]): NetworkResolver {
  const byName = new Map(networks.map((n) => [n.name, n]))
  const only = networks.length === 1 ? networks[0] : undefined
  const byHost = new Map<string, ServedNetwork>()
  for (const network of networks) for (const host of network.hosts ?? []) byHost.set(host.toLowerCase(), network)
  const byLabel = new Map(networks.filter((n) => n.hosts === undefined || n.hosts.length === 0).map((n) => [n.name, n]))
  const known = [...byName.keys()].sort().join(', ')
  const addresses = networks
    .map((n) => (n.hosts !== undefined && n.hosts.length > 0 ? n.hosts.map((h) => `${h} (${n.name})`).join(', ') : `${n.name}.<domain> (${n.name})`))
    .join(', ')
  const unknownName = (name: string) => notFound(`network "${name.slice(0, 64)}" is not served here; known networks: ${known}`)
  const resolveHost = (host: string | undefined): ServedNetwork | NetworkMiss => {
    if (only !== undefined) return only
    const name = hostName(host)
    const configured = byHost.get(name)
    if (configured !== undefined) return configured
    const label = hostLabel(name)
    if (label !== undefined) {
      const network = byLabel.get(label)
      if (network !== undefined) return network
      // Note: without configured hosts the first label is the network's name: the 404 says so as it always has.
      if (byHost.size === 0) return { unknown: label, body: unknownName(label) }
    }
    return {
      unknown: name,
      body: notFound(`no network is served at host "${name.slice(0, 64)}"; addresses: ${addresses}, or /<network>/v3/<KEY> on any host; known networks: ${known}`),
    }
  }
  let lastHost: string | undefined
  let lastHostAnswer: ServedNetwork | NetworkMiss | undefined
  return {
    byName,
    lookup: (name) => byName.get(name),
    fromPath: (name) => byName.get(name) ?? { unknown: name, body: unknownName(name) },
    fromHost(host) {
      // Note: a client sends the same Host on every request: the last one's answer is kept.
      if (host === lastHost && lastHostAnswer !== undefined) return lastHostAnswer
      lastHost = host
      lastHostAnswer = resolveHost(host)
      return lastHostAnswer
    },
  }
}
