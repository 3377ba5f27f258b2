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
  start: {
    summary: 'run the whole system (migrations, sample node, indexer, RPC, dashboard) and print how to query it',
    load: () => import('./commands/start.js'),
  },
  migrate: { summary: 'create the database if missing and apply migrations', load: () => import('./commands/migrate.js') },
  'sample-node': {
    summary: 'a geth-compatible archive node serving era1 or synthetic chains (dev/tests)',
    load: () => import('@uncle-rpc/sample-node/cli'),
  },
  indexer: {
    summary: 'index blocks and uncles from archive nodes into Postgres (BullMQ workers)',
    load: () => import('@uncle-rpc/indexer/cli'),
  },
  status: {
    summary: 'print per-network indexing progress: ranges, gaps, failed jobs',
    load: () => import('@uncle-rpc/indexer/status-cli'),
  },
  rpc: {
    summary: 'serve eth_getUncleByBlockHashAndIndex over HTTP and WebSocket',
    load: () => import('@uncle-rpc/rpc/cli'),
  },
  era1: {
    summary: 'era1 archives: verify files against the published roots, write synthetic ones',
    load: () => import('./commands/era1.js'),
  },
  keys: {
    summary: 'API keys: create, list, revoke, plans and limits, failover, usage',
    load: () => import('@uncle-rpc/accounts/keys-cli'),
  },
  dashboard: {
    summary: 'the developer dashboard: accounts, keys and their restrictions, usage, plans (web app)',
    load: () => import('@uncle-rpc/dashboard/cli'),
  },
  accounts: {
    summary: 'dashboard accounts: create, list, set-plan, disable, enable, upgrade requests',
    load: () => import('@uncle-rpc/accounts/accounts-cli'),
  },
}
