import {
  type CommandContext,
  type DbTimeoutFlags,
  dbTimeoutFlagNames,
  dbTimeoutsUsage,
  demoNetworksConfig,
  integerFlag,
  parseDbTimeoutFlags,
  parseFlags,
  parseRedisUrl,
  redisKeyPrefix,
  resolveNetworksConfig,
  runCommand,
} from '@uncle-rpc/config'
import { createDb } from '@uncle-rpc/db'
import { type MetricsServer, metricsUsage, serveMetrics } from '@uncle-rpc/metrics'
import { untilSignal } from '@uncle-rpc/process'
import { createIndexerMetrics } from './metrics.js'
import { defaultIndexerOptions, type IndexerOptions } from './options.js'
import { startIndexer } from './service.js'

/**
 * Postgres bounds of the indexer: its largest statements (an epoch's COPY, range compaction) take
 * seconds. Note: the query timeout is how long its writes and head follower wait on a hung primary
 * before the connection is dropped and the next one goes to wherever the address leads now (a
 * failover); 20 s, well above those statements, instead of the 65 s it was.
 */
export const defaultIndexerDbTimeouts: DbTimeoutFlags = { statementTimeoutMs: 15_000, queryTimeoutMs: 20_000, connectTimeoutMs: 5000, keepAliveMs: 10_000 }

const usage = `Usage: uncle-rpc indexer [--config <file>] [flags]

Reads blocks and uncles from each network's era1 archives ("era1" in the config: a directory,
or an http(s) mirror whose files are downloaded one by one) and archive node ("rpcUrl"), verifies them and writes them to Postgres, through BullMQ jobs
in Redis: one job per era1 file, range jobs for what the node serves. An era1 file is verified
whole before any of it is written (structure, checksums, every hash, total difficulty, the epoch
accumulator and, with published roots, the epoch's root); a file that fails is refused, recorded
for \`uncle-rpc status\`, and the other epochs go on. Blocks from the node are re-hashed.
A network without a toBlock is followed live: blocks above head − confirmations are
ingested as they come (polling eth_blockNumber; newHeads over ws(s)://) and reorgs are
resolved (replaced blocks stay, marked not canonical). Run several indexer processes on
the same database and Redis to share the work: range jobs are split between them and one
process at a time (a lease in Redis) follows each network's head.
A network whose node is down waits and retries; the others keep going.

Flags:
  --config <file>        networks config (JSON); default $UNCLE_RPC_CONFIG, else one demo network
                         "mainnet" on the bundled sample node at ${demoNetworksConfig().networks[0]?.rpcUrl}
  --concurrency <n>      range jobs processed at once per network (default ${defaultIndexerOptions.concurrency})
  --range-size <n>       blocks per range job (default ${defaultIndexerOptions.rangeSize})
  --batch-size <n>       JSON-RPC requests per batch (default ${defaultIndexerOptions.batchSize})
  --max-in-flight <n>    batches in flight per network, adapted down on 429/5xx (default ${defaultIndexerOptions.maxInFlight})
  --lock-duration-ms <n> a crashed worker's job is taken over after this (default ${defaultIndexerOptions.lockDurationMs})
  --poll-interval-ms <n> how often a live network's head is polled (default ${defaultIndexerOptions.pollIntervalMs})
  --era1-concurrency <n> era1 files processed at once per network (default ${defaultIndexerOptions.era1Concurrency})
  --era1-verify-threads <n>
                         threads verifying era1 files beside the writes; 0: on the main thread
                         (default ${defaultIndexerOptions.era1VerifyThreads})
  --keep-era1            keep era1 files downloaded from a mirror after indexing them
  --exit-when-done       exit once every network with a toBlock is fully indexed
${dbTimeoutsUsage(defaultIndexerDbTimeouts)}
${metricsUsage}
  -h, --help

Environment: DATABASE_URL (default postgres://postgres:postgres@127.0.0.1:5432/uncle_rpc),
REDIS_URL (default redis://127.0.0.1:6379; under Redis Sentinel
redis+sentinel://[:password@]host:port[,host:port…]/<master name>[/<db>]), UNCLE_RPC_CONFIG, LOG_LEVEL.
Run \`uncle-rpc migrate\` first.
`

/** `uncle-rpc indexer` flags, parsed. */
export type IndexerArgs = {
  config: string | undefined
  options: IndexerOptions
  db: DbTimeoutFlags
  metricsListen: { port: number; host: string } | undefined
}

/** The indexer's options from its flags; 'help' for -h/--help. Throws UsageError. */
export function parseIndexerArgs(argv: string[]): IndexerArgs | 'help' {
  const values = parseFlags(argv, {
    config: { type: 'string' },
    concurrency: { type: 'string' },
    'range-size': { type: 'string' },
    'batch-size': { type: 'string' },
    'max-in-flight': { type: 'string' },
    'lock-duration-ms': { type: 'string' },
    'poll-interval-ms': { type: 'string' },
    'exit-when-done': { type: 'boolean', default: false },
    'era1-concurrency': { type: 'string' },
    'era1-verify-threads': { type: 'string' },
    'keep-era1': { type: 'boolean', default: false },
    'metrics-port': { type: 'string' },
    'metrics-host': { type: 'string', default: '127.0.0.1' },
    ...Object.fromEntries(dbTimeoutFlagNames.map((f) => [f, { type: 'string' as const }])),
  })
  if (values.help) return 'help'
  const metricsPort = values['metrics-port'] as string | undefined
  const positiveInt = (name: string, fallback: number) => integerFlag(name, values[name] as string | undefined, 1, fallback)
  const d = defaultIndexerOptions
  return {
    config: values.config as string | undefined,
    options: {
      ...d,
      concurrency: positiveInt('concurrency', d.concurrency),
      rangeSize: positiveInt('range-size', d.rangeSize),
      batchSize: positiveInt('batch-size', d.batchSize),
      maxInFlight: positiveInt('max-in-flight', d.maxInFlight),
      lockDurationMs: positiveInt('lock-duration-ms', d.lockDurationMs),
      pollIntervalMs: positiveInt('poll-interval-ms', d.pollIntervalMs),
      exitWhenDone: values['exit-when-done'] === true,
      era1Concurrency: positiveInt('era1-concurrency', d.era1Concurrency),
      era1VerifyThreads: integerFlag('era1-verify-threads', values['era1-verify-threads'] as string | undefined, 0, d.era1VerifyThreads, 16),
      keepEra1: values['keep-era1'] === true,
    },
    db: parseDbTimeoutFlags(values, defaultIndexerDbTimeouts),
    metricsListen:
      metricsPort === undefined ? undefined : { port: integerFlag('metrics-port', metricsPort, 0, 0, 65535), host: values['metrics-host'] as string },
  }
}

/** `uncle-rpc indexer`: runs until SIGINT/SIGTERM (or until done, with --exit-when-done). */
export function run(argv: string[]): Promise<number | undefined> {
  return runCommand(argv, { name: 'indexer', usage, parse: parseIndexerArgs, run: index })
}

async function index({ config: configPath, options, db, metricsListen }: IndexerArgs, { env, logger }: CommandContext): Promise<number> {
  const config = resolveNetworksConfig(env, configPath)
  const metrics = metricsListen === undefined ? undefined : createIndexerMetrics()
  const database = createDb({ url: env.DATABASE_URL, logger, timeouts: db })
  let metricsServer: MetricsServer | undefined
  logger.info({ msg: 'starting indexer', networks: config.networks.map((n) => n.name), ...options })
  try {
    const indexer = await startIndexer(
      { db: database.db, redis: parseRedisUrl(env.REDIS_URL), prefix: redisKeyPrefix(env.DATABASE_URL), logger, metrics },
      config.networks,
      options,
    )
    if (metrics !== undefined && metricsListen !== undefined) {
      const onError = (error: unknown) => logger.error({ msg: 'collecting metrics failed', error: (error as Error).message })
      metricsServer = await serveMetrics({ source: metrics.registry, onError }, metricsListen)
      process.stdout.write(`indexer metrics on ${metricsServer.url}\n`)
    }
    const signalled = untilSignal()
    let fatal: unknown
    const finished = indexer.done.then(
      () => 'done',
      (error: unknown) => {
        fatal = error
        return 'configuration error'
      },
    )
    const reason = await Promise.race([signalled, finished])
    logger.info({ msg: 'stopping indexer', reason })
    await indexer.stop()
    if (fatal) throw fatal
    return 0
  } finally {
    await metricsServer?.close()
    await database.close()
  }
}
