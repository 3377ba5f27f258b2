import { parseArgs } from 'node:util'
import { parseEnv, resolveNetworksConfig } from '@uncle-rpc/config'
import { createDb } from '@uncle-rpc/db'
import { queuePrefix } from './jobs.js'
import { collectStatus, formatStatus } from './status.js'

const usage = `Usage: uncle-rpc status [--config <file>] [--json]

Prints each network's indexing progress and exits: indexed ranges, gaps, block and uncle
counts, queued and failed jobs (with the reason each failed), refused era1 files (epoch,
file, what differed).
Without --config (or $UNCLE_RPC_CONFIG), every network found in the database is shown.

Flags:
  --config <file>   networks config (JSON)
  --json            machine-readable output
  -h, --help
`

/** `uncle-rpc status` */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) {
    process.stdout.write(usage)
    return 0
  }
  const env = parseEnv(process.env)
  const configPath = values.config ?? env.UNCLE_RPC_CONFIG
  const networks = configPath === undefined ? undefined : resolveNetworksConfig(env, configPath).networks
  const database = createDb({ url: env.DATABASE_URL, max: 2 })
  // Note: fail fast when Redis is down instead of ioredis's endless reconnects.
  const connection = { url: env.REDIS_URL, maxRetriesPerRequest: 1, connectTimeout: 3_000, retryStrategy: () => null }
  try {
    const statuses = await collectStatus({ db: database.db, connection, prefix: queuePrefix(env.DATABASE_URL) }, networks)
    process.stdout.write(values.json ? `${JSON.stringify(statuses, null, 2)}\n` : formatStatus(statuses))
    return statuses.some((s) => s.failed.length > 0 || s.gaps.length > 0 || s.era1Refused.length > 0) ? 3 : 0
  } finally {
    await database.close()
  }
}
