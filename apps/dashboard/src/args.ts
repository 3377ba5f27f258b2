import { isIP } from 'node:net'
import { type DbTimeoutFlags, dbTimeoutFlagNames, dbTimeoutsUsage, integerFlag, parseDbTimeoutFlags, parseFlags, UsageError } from '@uncle-rpc/config'
import type { SignupMode } from './api/context.js'
import type { SecureCookies } from './auth/sessions.js'

/** Whose X-Forwarded-* headers are believed: nobody's (`false`), or these proxies (Express's names, addresses, CIDRs). */
export type TrustProxy = false | readonly string[]

/** `uncle-rpc dashboard` flags, parsed. */
export type DashboardArgs = {
  port: number
  host: string
  signup: SignupMode
  rpcUrl: string
  publicUrl: string | undefined
  secureCookies: SecureCookies
  trustProxy: TrustProxy
  maxKeys: number
  mailFrom: string
  config: string | undefined
  db: DbTimeoutFlags
}

/** Postgres bounds of the dashboard: its heaviest statement is a usage series over a few months. */
const defaultDashboardDbTimeouts: DbTimeoutFlags = { statementTimeoutMs: 10_000, queryTimeoutMs: 12_000, connectTimeoutMs: 5000, keepAliveMs: 10_000 }

const defaultDashboardPort = 8547
const defaultMailFrom = 'uncle-rpc dashboard <no-reply@localhost>'

export const usage = `Usage: uncle-rpc dashboard [--port <n>] [--signup open|invite] [--rpc-url <public base URL>] [--config <file>]

The developer dashboard: sign up (the email is verified by a link), sign in, reset a forgotten
password by email, create and name API keys, copy their HTTP and WebSocket endpoints, restrict
them (allowed origins, allowed user agents, a secret, networks), cap their requests per second
and per day under the plan's limits, see usage per day, hour, key and network, and ask for a
plan upgrade. Served from the same Postgres as the RPC service; the JSON API under /api is
documented in apps/dashboard/README.md.

Flags:
  --port <n>             default ${defaultDashboardPort} (0 = any free port)
  --host <addr>          default 127.0.0.1
  --signup open|invite   open: anyone may sign up; invite (default): the operator creates accounts
                         with \`uncle-rpc accounts create\`
  --rpc-url <url>        public base URL of the RPC service, used in the endpoints shown
                         (default http://127.0.0.1:8545)
  --config <file>        the networks config the RPC service serves (default $UNCLE_RPC_CONFIG,
                         else the demo network): its networks are the endpoints shown
  --public-url <url>     the dashboard's own public base URL, used in the links of its emails
                         (default http://HOST:PORT as it listens)
  --mail-from <address>  From of its emails (default "${defaultMailFrom}")
  --trust-proxy <list>   whose X-Forwarded-For / X-Forwarded-Proto to believe: none (default),
                         or a comma-separated list of proxy addresses, CIDRs or the names
                         loopback, linklocal, uniquelocal. Decides the client address of the
                         per-address limits, Secure cookies and HSTS.
  --max-keys <n>         most live keys per account (default 100)
  --secure-cookies auto|always|never
                         Secure flag of the session cookie; auto (default): when the request came
                         over https (X-Forwarded-Proto counts from a trusted proxy)
${dbTimeoutsUsage(defaultDashboardDbTimeouts)}
  -h, --help

Prints "dashboard listening on http://HOST:PORT" once ready. Environment: DATABASE_URL, LOG_LEVEL,
SMTP_URL (smtp://user:password@host:587 or smtps://…:465; unset: emails are written to the log,
links included, for development only).
`

const proxyNames = new Set(['loopback', 'linklocal', 'uniquelocal'])
function isProxyEntry(entry: string): boolean {
  if (proxyNames.has(entry)) return true
  const [address, bits, ...rest] = entry.split('/')
  const family = isIP(address ?? '')
  if (family === 0 || rest.length > 0) return false
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
}

/** Parses --trust-proxy: `none` → false; else every entry must be a proxy name, an address or a CIDR. */
function parseTrustProxy(text: string): TrustProxy {
  if (text === 'none') return false
  const entries = text.split(',').map((e) => e.trim())
  const bad = entries.find((e) => !isProxyEntry(e))
  if (bad !== undefined) throw new UsageError(`--trust-proxy takes none or addresses, CIDRs, loopback, linklocal, uniquelocal; got "${bad}"`)
  return entries
}

const httpUrl = (flag: string, text: string) => {
  if (!/^https?:\/\/[^/\s]+(\/\S*)?$/.test(text)) throw new UsageError(`--${flag} must be an http(s) URL, got "${text}"`)
  return text.replace(/\/+$/, '')
}

/** Parses the flags; 'help' for -h/--help. Throws UsageError on bad values. */
export function parseDashboardArgs(argv: string[]): DashboardArgs | 'help' {
  const values = parseFlags(argv, {
    port: { type: 'string', default: String(defaultDashboardPort) },
    host: { type: 'string', default: '127.0.0.1' },
    signup: { type: 'string', default: 'invite' },
    'rpc-url': { type: 'string', default: 'http://127.0.0.1:8545' },
    'public-url': { type: 'string' },
    'mail-from': { type: 'string', default: defaultMailFrom },
    'trust-proxy': { type: 'string', default: 'none' },
    'max-keys': { type: 'string' },
    config: { type: 'string' },
    'secure-cookies': { type: 'string', default: 'auto' },
    ...Object.fromEntries(dbTimeoutFlagNames.map((f) => [f, { type: 'string' as const }])),
  })
  if (values.help) return 'help'
  const port = Number(values.port)
  if (!/^\d+$/.test(String(values.port)) || port > 65535) throw new UsageError(`--port must be 0 to 65535, got "${values.port}"`)
  const signup = String(values.signup)
  if (signup !== 'open' && signup !== 'invite') throw new UsageError(`--signup must be open or invite, got "${signup}"`)
  const secureCookies = String(values['secure-cookies'])
  if (!['auto', 'always', 'never'].includes(secureCookies)) throw new UsageError(`--secure-cookies must be auto, always or never, got "${secureCookies}"`)
  return {
    port,
    host: String(values.host),
    signup,
    rpcUrl: httpUrl('rpc-url', String(values['rpc-url'])),
    publicUrl: values['public-url'] === undefined ? undefined : httpUrl('public-url', String(values['public-url'])),
    mailFrom: String(values['mail-from']),
    trustProxy: parseTrustProxy(String(values['trust-proxy'])),
    maxKeys: integerFlag('max-keys', values['max-keys'] as string | undefined, 1, 100, 100_000),
    config: values.config as string | undefined,
    secureCookies: secureCookies as SecureCookies,
    db: parseDbTimeoutFlags(values, defaultDashboardDbTimeouts),
  }
}
