import { type DbTimeoutFlags, dbTimeoutFlagNames, dbTimeoutsUsage, parseDbTimeoutFlags, parseFlags, UsageError } from '@uncle-rpc/config'
import type { SignupMode } from './api/context.js'
import type { SecureCookies } from './auth/sessions.js'

/** `uncle-rpc dashboard` flags, parsed. */
export type DashboardArgs = { port: number; host: string; signup: SignupMode; rpcUrl: string; secureCookies: SecureCookies; db: DbTimeoutFlags }

/** Postgres bounds of the dashboard: its heaviest statement is a usage series over a few months. */
export const defaultDashboardDbTimeouts: DbTimeoutFlags = { statementTimeoutMs: 10_000, queryTimeoutMs: 12_000, connectTimeoutMs: 5000, keepAliveMs: 10_000 }

export const defaultDashboardPort = 8547

export const usage = `Usage: uncle-rpc dashboard [--port <n>] [--signup open|invite] [--rpc-url <public base URL>]

The developer dashboard: sign in, create and name API keys, copy their HTTP and WebSocket
endpoints, restrict them (allowed origins, allowed user agents, a secret, networks), cap their
requests per second and per day under the plan's limits, see usage per day, hour, key and
network, and ask for a plan upgrade. Served from the same Postgres as the RPC service; the JSON
API under /api is documented in apps/dashboard/README.md.

Flags:
  --port <n>             default ${defaultDashboardPort} (0 = any free port)
  --host <addr>          default 127.0.0.1
  --signup open|invite   open: anyone may sign up; invite (default): the operator creates accounts
                         with \`uncle-rpc accounts create\`
  --rpc-url <url>        public base URL of the RPC service, used in the endpoints shown
                         (default http://127.0.0.1:8545)
  --secure-cookies auto|always|never
                         Secure flag of the session cookie; auto (default): when the request came
                         over https (X-Forwarded-Proto from a proxy on loopback counts)
${dbTimeoutsUsage(defaultDashboardDbTimeouts)}
  -h, --help

Prints "dashboard listening on http://HOST:PORT" once ready. Environment: DATABASE_URL, LOG_LEVEL.
`

/** Parses the flags; 'help' for -h/--help. Throws UsageError on bad values. */
export function parseDashboardArgs(argv: string[]): DashboardArgs | 'help' {
  const values = parseFlags(argv, {
    port: { type: 'string', default: String(defaultDashboardPort) },
    host: { type: 'string', default: '127.0.0.1' },
    signup: { type: 'string', default: 'invite' },
    'rpc-url': { type: 'string', default: 'http://127.0.0.1:8545' },
    'secure-cookies': { type: 'string', default: 'auto' },
    ...Object.fromEntries(dbTimeoutFlagNames.map((f) => [f, { type: 'string' as const }])),
  })
  if (values.help) return 'help'
  const port = Number(values.port)
  if (!/^\d+$/.test(String(values.port)) || port > 65535) throw new UsageError(`--port must be 0 to 65535, got "${values.port}"`)
  const signup = String(values.signup)
  if (signup !== 'open' && signup !== 'invite') throw new UsageError(`--signup must be open or invite, got "${signup}"`)
  const rpcUrl = String(values['rpc-url'])
  if (!/^https?:\/\/[^/\s]+(\/\S*)?$/.test(rpcUrl)) throw new UsageError(`--rpc-url must be an http(s) URL, got "${rpcUrl}"`)
  const secureCookies = String(values['secure-cookies'])
  if (!['auto', 'always', 'never'].includes(secureCookies)) throw new UsageError(`--secure-cookies must be auto, always or never, got "${secureCookies}"`)
  return { port, host: String(values.host), signup, rpcUrl: rpcUrl.replace(/\/+$/, ''), secureCookies: secureCookies as SecureCookies, db: parseDbTimeoutFlags(values, defaultDashboardDbTimeouts) }
}
