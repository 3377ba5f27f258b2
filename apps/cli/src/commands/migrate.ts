import { parseArgs } from 'node:util'
import { integerFlag, isMultiHostPostgresUrl, multiHostPostgresMessage, parseEnv } from '@uncle-rpc/config'
import { defaultMigrateTimeouts, migrateDatabase } from '@uncle-rpc/db'

const usage = `Usage: uncle-rpc migrate [--database-url <url>] [--lock-timeout-ms <n>] [--statement-timeout-ms <n>]

Creates the database if it does not exist, then applies the pending migrations from the
repository's migrations/ folder in one transaction, under a transaction-scoped advisory lock.
Safe to run again, from several processes at once, and through PgBouncer in either pool mode.

Flags:
  --database-url <url>          postgres:// URL; default $DATABASE_URL, else postgres://postgres:postgres@127.0.0.1:5432/uncle_rpc
  --lock-timeout-ms <n>         give up when another migrate holds the lock this long; default ${defaultMigrateTimeouts.lockTimeoutMs}
  --statement-timeout-ms <n>    give up when one statement runs this long (nothing is applied); default ${defaultMigrateTimeouts.statementTimeoutMs}
  -h, --help
`

/** The URL without its password, for printing. */
function safeUrl(url: URL): string {
  const shown = new URL(url)
  if (shown.password) shown.password = '***'
  return shown.toString()
}

/** `uncle-rpc migrate`: prints what it did on stdout; exit code 2 for bad flags. */
export async function run(argv: string[]): Promise<number> {
  let values: { 'database-url'?: string | undefined; 'lock-timeout-ms'?: string | undefined; 'statement-timeout-ms'?: string | undefined; help?: boolean | undefined }
  let timeouts: { lockTimeoutMs?: number; statementTimeoutMs?: number }
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        'database-url': { type: 'string' },
        'lock-timeout-ms': { type: 'string' },
        'statement-timeout-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
    const lock = integerFlag('lock-timeout-ms', values['lock-timeout-ms'], 1, defaultMigrateTimeouts.lockTimeoutMs)
    const statement = integerFlag('statement-timeout-ms', values['statement-timeout-ms'], 1, defaultMigrateTimeouts.statementTimeoutMs)
    timeouts = { lockTimeoutMs: lock, statementTimeoutMs: statement }
  } catch (error) {
    process.stderr.write(`migrate: ${(error as Error).message}\n(uncle-rpc migrate --help for the flags)\n`)
    return 2
  }
  if (values.help) {
    process.stdout.write(usage)
    return 0
  }
  const flag = values['database-url']
  if (flag !== undefined && isMultiHostPostgresUrl(flag)) {
    process.stderr.write(`migrate: --database-url: ${multiHostPostgresMessage}\n`)
    return 2
  }
  const url = new URL(flag ?? parseEnv(process.env).DATABASE_URL)
  if (flag !== undefined && url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    process.stderr.write('migrate: --database-url: expected a postgres:// or postgresql:// URL\n')
    return 2
  }
  const result = await migrateDatabase({ url: url.toString(), timeouts })
  const where = `${safeUrl(url)}`
  process.stdout.write(
    [
      result.created ? `created database "${result.database}" (${where})` : `database "${result.database}" exists (${where})`,
      result.applied > 0
        ? `applied ${result.applied} migration${result.applied === 1 ? '' : 's'}; ${result.total} of ${result.total} now applied`
        : `schema up to date: ${result.total} of ${result.total} migrations applied`,
      '',
    ].join('\n'),
  )
  return 0
}
