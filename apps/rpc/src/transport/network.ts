import { errorResponse, NotFoundError } from '@uncle-rpc/jsonrpc'
import type { ServedNetwork } from '../methods/context.js'

/** Picks the network of a request from the Host name or the path. */
export type NetworkResolver = {
  /** Known networks, by name. */
  readonly byName: ReadonlyMap<string, ServedNetwork>
  /** The network named by `name`, or undefined. */
  lookup(name: string): ServedNetwork | undefined
  /**
   * The network named by the Host header's first label (`mainnet.example.com:8545` → mainnet).
   * A host without one (an IP address or a single label such as `localhost`) means the only
   * network when exactly one is served. Returns the name that was not found otherwise.
   */
  fromHost(host: string | undefined): ServedNetwork | { unknown: string }
  /** The 404 body for an unknown network: a JSON-RPC error naming it and listing the known ones. */
  unknownBody(name: string): string
}

const ipv4 = /^\d+\.\d+\.\d+\.\d+$/

/** The host name's first label, lowercased; undefined for IP literals and single-label hosts. */
export function hostLabel(host: string | undefined): string | undefined {
  if (host === undefined || host === '' || host.charCodeAt(0) === 91) return undefined // '[' = IPv6 literal
  const colon = host.lastIndexOf(':')
  const name = colon === -1 ? host : host.slice(0, colon)
  const dot = name.indexOf('.')
  if (dot === -1 || ipv4.test(name)) return undefined
  return name.slice(0, dot).toLowerCase()
}

/** Builds the resolver over the configured networks. */
export function createNetworkResolver(networks: readonly ServedNetwork[]): NetworkResolver {
  const byName = new Map(networks.map((n) => [n.name, n]))
  const only = networks.length === 1 ? networks[0] : undefined
  const known = [...byName.keys()].sort().join(', ')
  const fromHostLabel = (host: string | undefined): ServedNetwork | { unknown: string } => {
    const label = hostLabel(host)
    if (label === undefined) return only ?? { unknown: host ?? '' }
    return byName.get(label) ?? { unknown: label }
  }
  let lastHost: string | undefined
  let lastHostAnswer: ServedNetwork | { unknown: string } | undefined
  return {
    byName,
    lookup: (name) => byName.get(name),
    fromHost(host) {
      // Note: a client sends the same Host on every request: the last one's answer is kept.
      if (host === lastHost && lastHostAnswer !== undefined) return lastHostAnswer
      lastHost = host
      lastHostAnswer = fromHostLabel(host)
      return lastHostAnswer
    },
    unknownBody: (name) =>
      // Note: -32601 as the contract suggests: the "method" (this network's endpoint) does not exist here.
      errorResponse('null', new NotFoundError(`network "${name.slice(0, 64)}" is not served here; known networks: ${known}`)),
  }
}
