import { parseArgs } from 'node:util'
import { ConfigError, parseEnv, resolveNetworksConfig } from '@uncle-rpc/config'
import { createDb } from '@uncle-rpc/db'
import { apiKeyPlans } from '@uncle-rpc/db/accounts'
import { keysCommand, type KeysFlags, type KeysNetwork } from './keysCommands.js'

const plans = apiKeyPlans.join('|')
const usage = `Usage: uncle-rpc keys <command>

API keys of the RPC service, their plans and limits. Only a key's sha256 is stored: a new key is
shown once. <key> is always the full key. Servers reload keys and limits every 5 s. Keys made
here belong to the operator account; developers make theirs in the dashboard (uncle-rpc
dashboard, uncle-rpc accounts), and those are listed and managed here too.

Keys:
  create --plan <${plans}> [--label <text>] [--rps <n>] [--daily <n>] [--batch <n>] [--failover on|off]
                          creates a key (limits: overrides of the plan's); prints it alone on the last line,
                          after the HTTP and WebSocket addresses of each network with a publicUrl
                          in the networks config (--config <file>, default $UNCLE_RPC_CONFIG)
  list                    prefix, label, plan, created, last used, revoked, then the limits in force
                          (rps, daily, batch; a trailing * marks the key's own override) and failover
  revoke <key>            the key stops working within seconds
  set-plan <key> <plan>   moves the key to another plan
  set-limits <key> [--rps <n|plan>] [--daily <n|plan>] [--batch <n|plan>]
                          sets the key's own limits; "plan" goes back to the plan's value
  set-failover <key> on|off
                          failover forwarding for every request of the key (only on plans that allow
                          it: growth, custom); a request can also ask with "Enable-Failover: true"
  usage <key> [--days <n>] [--by-method]
                          requests, errors, forwarded, rate_limited, then the key's requests refused
                          before they were read: refused_revoked (401), refused_network,
                          refused_origin, refused_user_agent, refused_secret (403); per UTC day
                          (default the last 7 days), newest first, then the total; written by the
                          servers every few seconds
                          --by-method: day, method, requests, rate_limited instead: per UTC day and
                          JSON-RPC method, newest day first, then a total per method; "(other)" is
                          calls naming no method served here, "(not recorded)" calls counted before
                          usage was kept per method

Plans (limits per second and per UTC day count batch entries; shared by every RPC process):
  plans                   each plan's requests_per_second, requests_per_day, max_batch_size, failover_allowed
  set-plan-limits <plan> [--rps <n>] [--daily <n>] [--batch <n>] [--failover on|off]
                          changes a plan for every key on it (or: UPDATE plans SET … in SQL)
  Defaults (migration 0003): core 10/s, 100,000/day, batch 100; developer 25/s, 500,000/day, 500;
  team 100/s, 2,000,000/day, 1,000; growth 500/s, 20,000,000/day, 1,000, failover;
  custom 1,000/s, 100,000,000/day, 1,000, failover.

Environment: DATABASE_URL (default postgres://postgres:postgres@127.0.0.1:5432/uncle_rpc). Run \`uncle-rpc migrate\` first.
`

function usageError(message: string): number {
  process.stderr.write(`keys: ${message}\n(uncle-rpc keys --help)\n`)
  return 2
}

/** `uncle-rpc keys <command>` (see the usage text): exit code 2 for bad usage or an unknown key. */
export async function run(argv: string[]): Promise<number> {
  let parsed: { values: KeysFlags & { help?: boolean }; positionals: string[] }
  try {
    const text = { type: 'string' } as const
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { plan: text, label: text, rps: text, daily: text, batch: text, failover: text, days: text, config: text, 'by-method': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    })
  } catch (error) {
    return usageError((error as Error).message)
  }
  const [name, ...args] = parsed.positionals
  if (parsed.values.help || name === undefined) {
    process.stdout.write(usage)
    return name === undefined && !parsed.values.help ? 2 : 0
  }
  const env = parseEnv(process.env)
  let networks: readonly KeysNetwork[]
  try {
    networks = resolveNetworksConfig(env, parsed.values.config).networks
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`keys: ${error.message}\n`)
    return 2
  }
  const database = createDb({ url: env.DATABASE_URL, max: 1 })
  try {
    const outcome = await keysCommand(database.db, name, args, parsed.values, networks)
    return typeof outcome === 'number' ? outcome : usageError(outcome.usageError)
  } finally {
    await database.close()
  }
}
