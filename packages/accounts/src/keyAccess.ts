import { timingSafeEqual } from 'node:crypto'
import type { Hex } from '@uncle-rpc/chain'
import { secretDigest } from '@uncle-rpc/db/accounts'
import { errorResponse, RejectedError } from '@uncle-rpc/jsonrpc'

/** A key's restrictions as stored (api_keys): empty lists and nulls mean "no restriction". */
export type KeyAccessSettings = {
  networks: readonly string[] | null
  allowedOrigins: readonly string[]
  allowedUserAgents: readonly string[]
  secretHash: Hex | null
}

/**
 * A key's restrictions compiled once, when keys load, so a request costs a few Set lookups.
 * Infura's semantics: every kind present must pass (AND), any entry of a kind may match (OR).
 */
export type KeyAccess = Readonly<{
  networks: ReadonlySet<string> | undefined
  /** Exact origins (`scheme://host[:port]`), lowercased. */
  origins: ReadonlySet<string> | undefined
  /** Hosts allowed with any scheme (`host[:port]` entries). */
  originHosts: ReadonlySet<string> | undefined
  /** `*.example.com` entries, as `.example.com`. */
  originSuffixes: readonly string[] | undefined
  /** Substrings, one of which the User-Agent must contain. */
  userAgents: readonly string[] | undefined
  secretHash: Buffer | undefined
  /** Authorization headers seen to carry the right secret (bounded), so the sha256 runs once per client. */
  goodAuthorizations: Set<string>
  /** Verdicts for Origin and User-Agent values seen (bounded): a client sends the same ones again and again. */
  originVerdicts: Map<string, boolean>
  userAgentVerdicts: Map<string, boolean>
}>

/** Most remembered values per kind and key; past it the memory starts over. */
const maxRemembered = 1000

function remember(verdicts: Map<string, boolean>, value: string, verdict: boolean): boolean {
  if (verdicts.size >= maxRemembered) verdicts.clear()
  verdicts.set(value, verdict)
  return verdict
}

/** What a key's restrictions read of a request's headers. */
export type AccessHeaders = Readonly<{ origin: string | undefined; userAgent: string | undefined; authorization: string | undefined }>

/** What a request shows of itself for the checks. */
export type AccessRequest = AccessHeaders & { network: string }

/** 403 `-32002 rejected due to project ID settings` (the contract's table). */
export const rejectedBody = errorResponse('null', new RejectedError())

/** Compiles a key's restrictions; undefined when it has none (the hot path then checks nothing). */
export function compileKeyAccess(settings: KeyAccessSettings): KeyAccess | undefined {
  const { networks, allowedOrigins, allowedUserAgents, secretHash } = settings
  if ((networks === null || networks.length === 0) && allowedOrigins.length === 0 && allowedUserAgents.length === 0 && secretHash === null)
    return undefined
  const origins = new Set<string>()
  const originHosts = new Set<string>()
  const originSuffixes: string[] = []
  for (const raw of allowedOrigins) {
    const entry = raw.trim().toLowerCase().replace(/\/+$/, '')
    if (entry.startsWith('*.')) originSuffixes.push(entry.slice(1))
    else if (entry.includes('://')) origins.add(entry)
    else originHosts.add(entry)
  }
  const hasOrigins = allowedOrigins.length > 0
  return {
    networks: networks === null || networks.length === 0 ? undefined : new Set(networks),
    origins: hasOrigins ? origins : undefined,
    originHosts: hasOrigins ? originHosts : undefined,
    originSuffixes: hasOrigins ? originSuffixes : undefined,
    userAgents: allowedUserAgents.length === 0 ? undefined : allowedUserAgents.map((ua) => ua.toLowerCase()),
    secretHash: secretHash === null ? undefined : Buffer.from(secretHash.slice(2), 'hex'),
    goodAuthorizations: new Set(),
    originVerdicts: new Map(),
    userAgentVerdicts: new Map(),
  }
}

function originAllowed(access: KeyAccess, origin: string | undefined): boolean {
  // Note: an allowlist refuses requests that name no Origin (servers, curl), as Infura does.
  if (origin === undefined) return false
  const known = access.originVerdicts.get(origin)
  return known ?? remember(access.originVerdicts, origin, matchOrigin(access, origin))
}

function matchOrigin(access: KeyAccess, origin: string): boolean {
  const value = origin.toLowerCase()
  if (access.origins!.has(value)) return true
  const at = value.indexOf('://')
  const host = at === -1 ? value : value.slice(at + 3)
  if (access.originHosts!.has(host)) return true
  const colon = host.lastIndexOf(':')
  const hostname = colon === -1 ? host : host.slice(0, colon)
  if (colon !== -1 && access.originHosts!.has(hostname)) return true
  for (const suffix of access.originSuffixes!) if (hostname.endsWith(suffix) && hostname.length > suffix.length) return true
  return false
}

function userAgentAllowed(access: KeyAccess, userAgent: string | undefined): boolean {
  if (userAgent === undefined) return false
  const known = access.userAgentVerdicts.get(userAgent)
  return known ?? remember(access.userAgentVerdicts, userAgent, matchUserAgent(access, userAgent))
}

function matchUserAgent(access: KeyAccess, userAgent: string): boolean {
  const value = userAgent.toLowerCase()
  for (const entry of access.userAgents!) if (value.includes(entry)) return true
  return false
}

/** The secret of an `Authorization: Basic base64(":" + secret)` header (any user name), or undefined. */
export function basicPassword(header: string | undefined): string | undefined {
  if (header === undefined || !/^basic\s/i.test(header)) return undefined
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon === -1 ? undefined : decoded.slice(colon + 1)
}

function secretAllowed(access: KeyAccess, authorization: string | undefined): boolean {
  if (authorization === undefined) return false
  if (access.goodAuthorizations.has(authorization)) return true
  const secret = basicPassword(authorization)
  if (secret === undefined || secret === '') return false
  if (!timingSafeEqual(secretDigest(secret), access.secretHash!)) return false
  if (access.goodAuthorizations.size >= 100) access.goodAuthorizations.clear()
  access.goodAuthorizations.add(authorization)
  return true
}

/** Whether the request passes every restriction of the key (kinds AND, entries of a kind OR). */
export function accessAllowed(access: KeyAccess, request: AccessRequest): boolean {
  return accessRefusal(access, request.network, request) === undefined
}

/** The first restriction of the key a request for `network` fails (network, Origin, User-Agent, secret, in that order), or undefined when it passes all. */
export function accessRefusal(access: KeyAccess, network: string, headers: AccessHeaders): 'network' | 'origin' | 'userAgent' | 'secret' | undefined {
  if (access.networks !== undefined && !access.networks.has(network)) return 'network'
  if (access.origins !== undefined && !originAllowed(access, headers.origin)) return 'origin'
  if (access.userAgents !== undefined && !userAgentAllowed(access, headers.userAgent)) return 'userAgent'
  if (access.secretHash !== undefined && !secretAllowed(access, headers.authorization)) return 'secret'
  return undefined
}
