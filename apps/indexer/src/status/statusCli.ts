import { parseArgs } from 'node:util'
import { oneShotTuning, parseEnv, producerTuning, redisKeyPrefix, resolveNetworksConfig } from '@uncle-rpc/config'
import { createDb } from '@uncle-rpc/db'
import { sleep, untilSignal } from '@uncle-rpc/process'
import { bullmqConnection } from '../bullmqConnection.js'
import { collectStatus, formatStatus, type NetworkStatus, type StatusNetwork } from './status.js'

const usage = `Usage: uncle-rpc status [--config <file>] [--json] [--watch [--interval-ms <n>]]

Prints each network's indexing progress and exits: a progress bar of the indexed height against
the target (toBlock, else the node's head), blocks/s and ETA (over the last minute), head
lag (node head − latest indexed block), indexed ranges, gaps, block and uncle counts, queued and
failed jobs (with the reason each failed), refused era1 files (epoch, file, what differed), and
jobs the database contradicts (completed in the queue, not held in the database).
Without --config (or $UNCLE_RPC_CONFIG), every network found in the database is shown (no node
to ask: no target, head lag or ETA).

Flags:
  --config <file>     networks config (JSON)
  --json              machine-readable output (with --watch: one JSON document per refresh)
  --watch             refresh until Ctrl-C; rates between refreshes
  --interval-ms <n>   refresh period with --watch (default 2000)
  -h, --help

Exit code (without --watch): 3 when a network has failed jobs, gaps, refused era1 files, or
completed jobs whose blocks the database does not hold.
`


/** `uncle-rpc status` */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      json: { type: 'boolean', default: false },
      watch: { type: 'boolean', default: false },
      'interval-ms': { type: 'string', default: '2000' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) {
    process.stdout.write(usage)
    return 0
  }
  const intervalMs = Number(values['interval-ms'])
  if (!Number.isInteger(intervalMs) || intervalMs < 100) {
    process.stderr.write(`status: --interval-ms must be an integer ≥ 100, got "${values['interval-ms']}"\n`)
    return 2
  }
  const env = parseEnv(process.env)
  const configPath = values.config ?? env.UNCLE_RPC_CONFIG
  const networks: readonly StatusNetwork[] | undefined = configPath === undefined ? undefined : resolveNetworksConfig(env, configPath).networks
  const database = createDb({ url: env.DATABASE_URL, max: 2 })
  // Note: fail fast when Redis is down instead of ioredis's endless reconnects.
  const connection = bullmqConnection(env.REDIS_URL, { ...producerTuning, ...oneShotTuning })
  const look = async () => ({ statuses: await collectStatus({ db: database.db, connection, prefix: redisKeyPrefix(env.DATABASE_URL) }, networks) })
  const show = (statuses: readonly NetworkStatus[]) => (values.json ? `${JSON.stringify(statuses, null, values.watch ? 0 : 2)}\n` : formatStatus(statuses))
  try {
    if (!values.watch) {
      const { statuses } = await look()
      process.stdout.write(show(statuses))
      return statuses.some((s) => s.failed.length > 0 || s.gaps.length > 0 || s.era1Refused.length > 0 || s.contradicted.length > 0) ? 3 : 0
    }
    let stopped = false
    const signalled = untilSignal().then(() => {
      stopped = true
    })
    while (!stopped) {
      const { statuses } = await look()
      // Note: on a terminal the screen is cleared first, so the view refreshes in place.
      const clear = !values.json && process.stdout.isTTY === true ? '\x1b[H\x1b[2J' : ''
      process.stdout.write(`${clear}${show(statuses)}`)
      await Promise.race([sleep(intervalMs), signalled])
    }
    return 0
  } finally {
    await database.close()
  }
}
