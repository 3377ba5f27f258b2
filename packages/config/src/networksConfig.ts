import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { ConfigError, formatIssues } from './issues.js'

// The networks config file operators write and script against. Its format is a contract:
// {"networks":[{"name":"mainnet","chainId":1,"rpcUrl":"http://…","fromBlock":0,"toBlock":15537393,
//   "confirmations":64,"partnerUrl":"http://…","era1":"/data/era1","era1Roots":"roots.txt",
//   "hosts":["mainnet.rpc.example.com"],"publicUrl":"https://mainnet.rpc.example.com"}]}
// Unknown keys are errors at every level, so a typo ("rpcURL") fails loudly instead of being ignored.

/** Confirmations used when a network does not set them: 64 blocks, two beacon-chain epochs (mainnet finality) and far past any PoW-era reorg. */
export const defaultConfirmations = 64

// Note: the RPC service picks the network from the first label of the Host header, so a name
// must be a valid DNS label: 1–63 lowercase letters, digits or hyphens, no hyphen at either end.
const dnsLabelRe = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

function integer(min: number, expected: string) {
  return z
    .number({ error: `expected ${expected}` })
    .int({ error: `expected ${expected}` })
    .min(min, { error: `expected ${expected}` })
}

function url(schemes: readonly string[]) {
  const expected = `expected an ${schemes.map((s) => `${s}//`).join(', ')} URL`
  return z.string({ error: expected }).refine((value) => {
    try {
      return schemes.includes(new URL(value).protocol)
    } catch {
      // Note: an unparseable URL is simply invalid; the refinement reports it.
      return false
    }
  }, expected)
}

// Note: exact names only, no `*.example.com` patterns: two patterns (or a pattern and a name) can
// overlap in ways no start-up check sees, and a host matched by accident would answer from another
// chain's index. A wrong answer is worse than a 404, so each address is listed.
const hostNameRe = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/

const hostName = z
  .string({ error: 'expected a host name such as "mainnet.rpc.example.com"' })
  .transform((value) => value.toLowerCase().replace(/\.$/, ''))
  .superRefine((value, ctx) => {
    if (value.includes('*')) ctx.addIssue({ code: 'custom', message: `"${value}": patterns are not supported; list each host name` })
    else if (value.includes('/') || value.includes(':'))
      ctx.addIssue({ code: 'custom', message: `"${value}": expected a host name alone, without scheme, port or path (the port is ignored when matching)` })
    else if (!hostNameRe.test(value)) ctx.addIssue({ code: 'custom', message: `"${value}": expected a host name such as "mainnet.rpc.example.com"` })
  })

const publicUrl = url(['http:', 'https:']).refine((value) => {
  const u = new URL(value)
  return u.search === '' && u.hash === '' && u.username === '' && u.password === ''
}, 'expected a base URL without query, fragment or credentials, such as "https://mainnet.rpc.example.com"')

const networkSchema = z
  .strictObject({
    name: z.string({ error: 'expected a string' }).regex(dnsLabelRe, {
      error: 'expected a DNS label: 1–63 lowercase letters, digits or hyphens, not starting or ending with a hyphen',
    }),
    chainId: integer(1, 'a positive integer'),
    rpcUrl: url(['http:', 'https:', 'ws:', 'wss:']).optional(),
    fromBlock: integer(0, 'a non-negative integer').default(0),
    toBlock: integer(0, 'a non-negative integer').optional(),
    confirmations: integer(0, 'a non-negative integer').default(defaultConfirmations),
    partnerUrl: url(['http:', 'https:', 'ws:', 'wss:']).optional(),
    verifyPartner: z.boolean({ error: 'expected true or false' }).optional(),
    era1: z.string({ error: 'expected a directory or an http(s):// base URL' }).min(1).optional(),
    era1Roots: z.string({ error: 'expected the path of a roots file' }).min(1).optional(),
    hosts: z.array(hostName, { error: 'expected an array of host names' }).min(1, { error: 'expected at least one host name' }).optional(),
    publicUrl: publicUrl.optional(),
  })
  .superRefine((network, ctx) => {
    if (network.rpcUrl === undefined && network.era1 === undefined)
      ctx.addIssue({ code: 'custom', path: ['rpcUrl'], message: 'expected an rpcUrl, an era1 source, or both' })
    if (network.rpcUrl === undefined && network.toBlock === undefined)
      ctx.addIssue({ code: 'custom', path: ['toBlock'], message: 'expected a toBlock: without an rpcUrl there is no head to follow' })
    if (network.era1Roots !== undefined && network.era1 === undefined)
      ctx.addIssue({ code: 'custom', path: ['era1Roots'], message: 'only meaningful with an era1 source' })
    if (network.toBlock !== undefined && network.toBlock < network.fromBlock)
      ctx.addIssue({ code: 'custom', path: ['toBlock'], message: `expected at least fromBlock (${network.fromBlock})` })
  })

const configSchema = z
  .strictObject({
    networks: z
      .array(networkSchema, { error: 'expected an array of networks' })
      .min(1, { error: 'expected at least one network' }),
  })
  .superRefine((config, ctx) => {
    const seen = new Map<string, number>()
    const hostOwner = new Map<string, number>()
    config.networks.forEach((network, i) => {
      network.hosts?.forEach((host, j) => {
        const owner = hostOwner.get(host)
        if (owner === undefined) hostOwner.set(host, i)
        else
          ctx.addIssue({
            code: 'custom',
            path: ['networks', i, 'hosts', j],
            message: owner === i ? `"${host}" is listed twice` : `"${host}" is already networks[${owner}]'s ("${config.networks[owner]?.name}"): a host serves one network`,
          })
      })
      const first = seen.get(network.name)
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['networks', i, 'name'],
          message: `duplicate network name "${network.name}" (also networks[${first}])`,
        })
      else seen.set(network.name, i)
    })
  })

/** One network to index and serve. Block numbers are plain numbers (safe integers); convert with BigInt at use. */
export type NetworkConfig = Readonly<{
  /** DNS label; the RPC service serves it at `<name>.<host>`. */
  name: string
  chainId: number
  /**
   * The archive node to index from: http(s):// or ws(s)://. Optional when `era1` covers
   * [fromBlock, toBlock]; blocks above the last era1 file come from it.
   */
  rpcUrl?: string
  /** First block to index. Default 0. */
  fromBlock: number
  /** Last block to index; absent = follow the head, `confirmations` behind it. */
  toBlock?: number
  /** How far behind the head the indexer stays when following it. Default {@link defaultConfirmations}. */
  confirmations: number
  /** Optional second endpoint for the same chain. */
  partnerUrl?: string
  /**
   * Whether the partner's answers are verified against the chain before they are passed on
   * (docs/failover.md: each forwarded call costs the partner three calls in one batch). Absent = true.
   */
  verifyPartner?: boolean
  /** era1 archives to read history from: a directory, or an http(s):// mirror's base URL. */
  era1?: string
  /**
   * Published epoch accumulator roots (one 0x root per line, epoch 0 first) that every era1
   * file must match. Mainnet's ship with uncle-rpc; without one, other chains get
   * self-consistency checks only.
   */
  era1Roots?: string
  /**
   * The host names (lowercase, no port) whose requests to `/v3/<KEY>` are this network's. Absent:
   * the Host's first label names the network. With one network, every host is that network.
   */
  hosts?: readonly string[]
  /** The base URL users call for this network (`https://mainnet.rpc.example.com`), shown by the dashboard and `npm start`. */
  publicUrl?: string
}>

export type NetworksConfig = Readonly<{ networks: readonly NetworkConfig[] }>

const knownKeys = (path: readonly PropertyKey[]): readonly string[] =>
  path.length === 0 ? Object.keys(configSchema.shape) : path[0] === 'networks' ? Object.keys(networkSchema.shape) : []

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}

/**
 * Validates a networks config: JSON text or an already parsed value. `source` names it in errors.
 * Throws {@link ConfigError} with one line per bad key, e.g. `networks[0].chainId: expected a positive integer`.
 */
export function parseNetworksConfig(json: unknown, source: string): NetworksConfig {
  let value = json
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json)
    } catch (error) {
      throw new ConfigError({ source, problems: [`not valid JSON: ${(error as Error).message}`], cause: error })
    }
  }
  const result = configSchema.safeParse(value)
  if (!result.success) throw new ConfigError({ source, problems: formatIssues(result.error.issues, knownKeys) })
  const networks = result.data.networks.map((n) => Object.freeze(withoutUndefined(n)) as NetworkConfig)
  return Object.freeze({ networks: Object.freeze(networks) })
}

/** Reads and validates the networks config file at `path` (see {@link parseNetworksConfig}). */
export function loadNetworksConfig(path: string): NetworksConfig {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `cannot read: ${(error as Error).message}`
    throw new ConfigError({ source: path, problems: [reason], cause: error })
  }
  return parseNetworksConfig(text, path)
}
