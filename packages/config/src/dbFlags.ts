import { integerFlag, UsageError } from './cli.js'

/** The Postgres time bounds a command takes as flags (the db package's DbTimeouts); 0 turns one off. */
export type DbTimeoutFlags = { statementTimeoutMs: number; queryTimeoutMs: number; connectTimeoutMs: number; keepAliveMs: number }

/** The flag names, for parseFlags. */
export const dbTimeoutFlagNames = ['db-statement-timeout-ms', 'db-query-timeout-ms', 'db-connect-timeout-ms', 'db-keepalive-ms'] as const

/** The flags' lines of a command's --help, with that command's defaults. */
export function dbTimeoutsUsage(d: DbTimeoutFlags): string {
  return `Postgres bounds (every connection of the command's pools; 0 = none):
  --db-statement-timeout-ms <n>    the server cancels a statement running longer; default ${d.statementTimeoutMs}
  --db-query-timeout-ms <n>        a query with no answer this long fails and its connection is
                                   destroyed (a hung server); above the statement timeout; default ${d.queryTimeoutMs}
  --db-connect-timeout-ms <n>      connecting, or waiting for a free pooled connection; default ${d.connectTimeoutMs}
  --db-keepalive-ms <n>            TCP keep-alive of idle connections, first probe after; default ${d.keepAliveMs}`
}

/** Reads the flags (strings from parseFlags) over the command's defaults. Throws UsageError. */
export function parseDbTimeoutFlags(values: object, d: DbTimeoutFlags): DbTimeoutFlags {
  const given = values as Partial<Record<(typeof dbTimeoutFlagNames)[number], string>>
  const read = (name: (typeof dbTimeoutFlagNames)[number], fallback: number) => integerFlag(name, given[name], 0, fallback)
  const flags = {
    statementTimeoutMs: read('db-statement-timeout-ms', d.statementTimeoutMs),
    queryTimeoutMs: read('db-query-timeout-ms', d.queryTimeoutMs),
    connectTimeoutMs: read('db-connect-timeout-ms', d.connectTimeoutMs),
    keepAliveMs: read('db-keepalive-ms', d.keepAliveMs),
  }
  // Note: a query timeout at or below the statement timeout destroys connections the server was about to free.
  if (flags.queryTimeoutMs > 0 && flags.statementTimeoutMs > 0 && flags.queryTimeoutMs <= flags.statementTimeoutMs)
    throw new UsageError(`--db-query-timeout-ms (${flags.queryTimeoutMs}) must be above --db-statement-timeout-ms (${flags.statementTimeoutMs})`)
  return flags
}
