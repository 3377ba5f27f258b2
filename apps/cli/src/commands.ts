/** A subcommand of `uncle-rpc`: its one-line summary and a lazy loader, so `--help` stays fast. */
export type Command = {
  summary: string
  load: () => Promise<{ run: (argv: string[]) => Promise<number | undefined> }>
}

/**
 * Every subcommand, by the stable name operators script against. Each app owns its
 * command's flags and `--help` text in its own `src/cli.ts`.
 */
export const commands: Record<string, Command> = {
  migrate: { summary: 'create the database if missing and apply migrations', load: () => import('./commands/migrate.js') },
}
