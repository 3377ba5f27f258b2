import { parseArgs } from 'node:util'
import { parseEnv } from '@uncle-rpc/config'
import { type ApiKeyRow, apiKeyPlans, createDb, type Db, listApiKeys, revokeApiKey, setApiKeyPlan } from '@uncle-rpc/db'
import { hashApiKey } from './auth.js'
import { createApiKey, isApiKeyPlan } from './keys.js'

const plans = apiKeyPlans.join('|')
const usage = `Usage: uncle-rpc keys <command>

API keys of the RPC service. Only a key's sha256 is stored: a new key is shown once.

Commands:
  create --plan <${plans}> [--label <text>]
                          creates a key; prints it alone on the last line
  list                    prefix, label, plan, created, last used, revoked (tab-separated)
  revoke <key>            the key stops working within seconds (the servers reload keys every 5 s)
  set-plan <key> <plan>   moves the key to another plan

Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/uncle_rpc). Run \`uncle-rpc migrate\` first.
`

function usageError(message: string): number {
  process.stderr.write(`keys: ${message}\n(uncle-rpc keys --help)\n`)
  return 2
}

const time = (date: Date | null) => (date === null ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z'))

function table(rows: readonly ApiKeyRow[]): string {
  const lines = [['prefix', 'label', 'plan', 'created', 'last_used', 'revoked']]
  for (const k of rows)
    lines.push([k.prefix, k.label ?? '-', k.plan, time(k.createdAt), time(k.lastUsedAt), time(k.revokedAt)])
  return lines.map((cells) => cells.join('\t')).join('\n') + '\n'
}

async function command(db: Db, name: string, args: string[], values: { plan?: string; label?: string }): Promise<number> {
  if (name === 'create') {
    if (args.length > 0) return usageError(`create takes no positional arguments, got "${args[0]}"`)
    if (values.plan === undefined || !isApiKeyPlan(values.plan)) return usageError(`create needs --plan <${plans}>`)
    const { key, row } = await createApiKey(db, { plan: values.plan, label: values.label })
    process.stdout.write(`created a ${row.plan} key${row.label ? ` "${row.label}"` : ''} (prefix ${row.prefix}); it is shown only once:\n${key}\n`)
    return 0
  }
  if (name === 'list') {
    if (args.length > 0) return usageError('list takes no arguments')
    process.stdout.write(table(await listApiKeys(db)))
    return 0
  }
  if (name === 'revoke') {
    if (args.length !== 1) return usageError('revoke takes one key')
    if (!(await revokeApiKey(db, { keyHash: hashApiKey(args[0]!) }))) return usageError('no such key')
    process.stdout.write(`revoked key ${args[0]!.slice(0, 8)}…\n`)
    return 0
  }
  if (name === 'set-plan') {
    const [key, plan] = args
    if (args.length !== 2 || key === undefined || plan === undefined || !isApiKeyPlan(plan))
      return usageError(`set-plan takes a key and one of ${plans}`)
    if (!(await setApiKeyPlan(db, { keyHash: hashApiKey(key), plan }))) return usageError('no such key')
    process.stdout.write(`key ${key.slice(0, 8)}… is now on the ${plan} plan\n`)
    return 0
  }
  return usageError(`unknown command "${name}"`)
}

/** `uncle-rpc keys <create|list|revoke|set-plan>`: exit code 2 for bad usage or an unknown key. */
export async function run(argv: string[]): Promise<number> {
  let parsed: { values: { plan?: string; label?: string; help?: boolean }; positionals: string[] }
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { plan: { type: 'string' }, label: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    })
  } catch (error) {
    return usageError((error as Error).message)
  }
  const [name, ...args] = parsed.positionals
  if (parsed.values.help || name === undefined) {
    process.stdout.write(usage)
    return name === undefined && !parsed.values.help ? 2 : 0
  }
  const database = createDb({ url: parseEnv(process.env).DATABASE_URL, max: 1 })
  try {
    return await command(database.db, name, args, parsed.values)
  } finally {
    await database.close()
  }
}
