import { parseArgs } from 'node:util'
import { parseEnv, UsageError } from '@uncle-rpc/config'
import { createDb } from '@uncle-rpc/db'
import { apiKeyPlans } from '@uncle-rpc/db/accounts'
import { type AccountsFlags, accountsCommand } from './accountsCommands.js'

const usage = `Usage: uncle-rpc accounts <command>

Developer accounts of the dashboard (uncle-rpc dashboard). Keys belong to accounts; an account's
plan is the plan of its keys. Keys made with \`uncle-rpc keys create\` belong to the operator account.

  create <email> [--plan <${apiKeyPlans.join('|')}>] [--password-stdin]
                          creates an account (default plan core); the password is read from stdin
                          with --password-stdin, else generated and printed once
  list                    id, email, plan, live keys, created, disabled
  set-plan <email> <plan> moves the account and all its keys to the plan; grants its open
                          upgrade requests for that plan (servers reload within 5 s)
  disable <email>         signs the account out, refuses its sign-ins and its keys
  enable <email>          undoes disable
  requests [--all]        open upgrade requests ("Upgrade to Growth", "Contact sales for Custom"),
                          newest first; --all includes granted ones. Grant with set-plan.

Environment: DATABASE_URL (default postgres://postgres:postgres@127.0.0.1:5432/uncle_rpc). Run \`uncle-rpc migrate\` first.
`

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

/** `uncle-rpc accounts <command>`: exit code 2 for bad usage or an unknown account. */
export async function run(argv: string[]): Promise<number> {
  let parsed: { values: AccountsFlags & { help?: boolean; 'password-stdin'?: boolean }; positionals: string[] }
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { plan: { type: 'string' }, all: { type: 'boolean' }, 'password-stdin': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    })
  } catch (error) {
    process.stderr.write(`accounts: ${(error as Error).message}\n(uncle-rpc accounts --help)\n`)
    return 2
  }
  const [name, ...args] = parsed.positionals
  if (parsed.values.help || name === undefined) {
    process.stdout.write(usage)
    return name === undefined && !parsed.values.help ? 2 : 0
  }
  const password = parsed.values['password-stdin'] ? await readStdin() : undefined
  const database = createDb({ url: parseEnv(process.env).DATABASE_URL, max: 1 })
  try {
    await accountsCommand({ db: database.db, write: (text) => process.stdout.write(text), password }, name, args, parsed.values)
    return 0
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`accounts: ${error.shortMessage}\n(uncle-rpc accounts --help)\n`)
    return 2
  } finally {
    await database.close()
  }
}
