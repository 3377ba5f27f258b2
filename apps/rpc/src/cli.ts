import cluster, { type Worker } from 'node:cluster'
import type { AddressInfo } from 'node:net'
import { type CommandContext, type Logger, type NetworksConfig, redisKeyPrefix, resolveNetworksConfig, runCommand } from '@uncle-rpc/config'
import { createDb, createReadReplicas, type ReadReplicas } from '@uncle-rpc/db'
import { type AdminReady, aggregateWorkers, exposeToPrimary, type MetricsServer, type MetricsSource, serveMetrics } from '@uncle-rpc/metrics'
import { untilSignal } from '@uncle-rpc/process'
import { parseRpcArgs, type RpcArgs, usage } from './args.js'
import { createRpcMetrics } from './metrics.js'
import { createUncleFilter } from './reads/uncleFilter.js'
import { createRpcServer } from './server.js'
import { applyV8Flags } from './v8Flags.js'
import { adminReadyBody, type ReadinessReport } from './readiness/readiness.js'
import { answerReadinessRequests, askWorkersReadiness } from './readiness/workerReadiness.js'

function listeningLine(args: RpcArgs, port: number, config: NetworksConfig): string {
  const host = args.host === '0.0.0.0' || args.host === '::' ? '127.0.0.1' : args.host
  const names = config.networks.map((n) => n.name).join(', ')
  return `rpc listening on http://${host}:${port}/v3/<API_KEY> and ws://${host}:${port}/ws/v3/<API_KEY> (networks: ${names}; workers: ${args.workers})\n`
}

/** Serves the admin port (GET /metrics, /health, /ready) when --metrics-port is given and prints its URL on stdout. */
async function metricsEndpoint(args: RpcArgs, logger: Logger, source: () => MetricsSource, ready: AdminReady): Promise<MetricsServer | undefined> {
  if (args.metrics === undefined) return undefined
  const server = await serveMetrics(
    { source: source(), ready, onError: (error) => logger.error({ msg: 'admin port: collecting metrics or readiness failed', error: (error as Error).message }) },
    args.metrics,
  )
  process.stdout.write(`rpc metrics on ${server.url}\n`)
  return server
}

const adminReady = (report: ReadinessReport) => ({ ready: report.ready, body: adminReadyBody(report) })

/**
 * Back-off before replacing a worker: none for one that served at least `stableMs`, else doubling
 * from 250 ms up to 30 s with each quick death in a row (a worker that cannot start does not spin).
 */
export function restartDelayMs(quickDeathsInARow: number): number {
  return quickDeathsInARow === 0 ? 0 : Math.min(30_000, 250 * 2 ** (quickDeathsInARow - 1))
}

const stableMs = 10_000

/** A worker's exit code when it cannot listen: the primary then stops rather than fork it again. */
export const cannotListenExitCode = 3

/**
 * The cluster primary: forks the workers and replaces any that dies (the others keep serving; the
 * listening socket stays open in the primary meanwhile); on SIGINT/SIGTERM sends SIGTERM to every
 * worker, each of which drains its connections, and exits 0 when all of them exited 0.
 */
async function runPrimary(args: RpcArgs, logger: Logger, config: NetworksConfig): Promise<number> {
  let stopping = false
  let announced = false
  let quickDeaths = 0
  const live = new Set<Worker>()
  const timers = new Set<NodeJS.Timeout>()
  const listening = new Set<Worker>()
  let allExited: (() => void) | undefined
  let failedCodes = 0
  let cannotListen: (() => void) | undefined
  const listenFailed = new Promise<'cannot listen'>((resolve) => (cannotListen = () => resolve('cannot listen')))

  cluster.on('listening', (worker, address) => {
    listening.add(worker)
    if (announced) logger.warn({ msg: 'a new rpc worker is serving', worker_pid: worker.process.pid })
    else if (listening.size === args.workers) {
      announced = true
      process.stdout.write(listeningLine(args, address.port, config))
    }
  })
  const metricsServer = await metricsEndpoint(args, logger, aggregateWorkers, () => askWorkersReadiness([...listening], args.readyTimeoutMs + 1000))

  const fork = () => {
    const startedAt = Date.now()
    const worker = cluster.fork()
    live.add(worker)
    logger.info({ msg: 'rpc worker started', worker_pid: worker.process.pid })
    worker.once('exit', (code, signal) => {
      live.delete(worker)
      listening.delete(worker)
      if (stopping) {
        if (code !== 0) {
          failedCodes++
          logger.error({ msg: 'an rpc worker did not stop cleanly', worker_pid: worker.process.pid, code, signal })
        }
        if (live.size === 0) allExited?.()
        return
      }
      if (code === cannotListenExitCode) {
        // Note: the port is the primary's; another worker would fail the same way.
        logger.error({ msg: 'an rpc worker cannot listen; stopping', worker_pid: worker.process.pid })
        process.stderr.write(`rpc: cannot listen on ${args.host}:${args.port} (the worker's log says why); stopping\n`)
        cannotListen?.()
        return
      }
      quickDeaths = Date.now() - startedAt < stableMs ? quickDeaths + 1 : 0
      const delayMs = restartDelayMs(quickDeaths)
      const entry = { worker_pid: worker.process.pid, code, signal, restart_in_ms: delayMs }
      // Note: exit code 0 is a clean stop (a SIGTERM sent to the worker itself), not a crash.
      if (code === 0) logger.warn({ msg: 'an rpc worker stopped cleanly; starting a new one', ...entry })
      else logger.error({ msg: 'an rpc worker died; starting a new one', ...entry })
      const timer = setTimeout(() => {
        timers.delete(timer)
        if (!stopping) fork()
      }, delayMs)
      timers.add(timer)
    })
  }
  for (let i = 0; i < args.workers; i++) fork()

  const signal = await Promise.race([untilSignal(), listenFailed])
  stopping = true
  logger.info({ msg: 'stopping rpc workers', signal, workers: live.size })
  for (const timer of timers) clearTimeout(timer)
  const exited = new Promise<void>((resolve) => {
    allExited = resolve
    if (live.size === 0) resolve()
  })
  // Note: the signal itself, not worker.kill(), which disconnects first and skips the graceful close.
  for (const worker of live) worker.process.kill('SIGTERM')
  await exited
  await metricsServer?.close()
  return failedCodes === 0 && signal !== 'cannot listen' ? 0 : 1
}

/** `uncle-rpc rpc`: serves until SIGINT/SIGTERM; exit code 2 for bad flags. */
export function run(argv: string[]): Promise<number | undefined> {
  return runCommand(argv, { name: 'rpc', usage, parse: parseRpcArgs, run: serve })
}

async function serve(args: RpcArgs, { env, logger }: CommandContext): Promise<number> {
  applyV8Flags()
  const config = resolveNetworksConfig(env, args.config)
  if (args.workers > 1 && cluster.isPrimary) return runPrimary(args, logger, config)

  // Note: registered before the slow start-up, so a SIGTERM meanwhile still means a clean stop.
  const signalled = untilSignal()
  const metrics = args.metrics === undefined ? undefined : createRpcMetrics()
  // Note: a cluster worker's metrics go to the primary over IPC; only the primary serves /metrics.
  if (metrics !== undefined && cluster.isWorker) exposeToPrimary(metrics.registry)
  // Note: generic plans: the uncle lookups are planned once per connection, not on every execution (client.ts).
  const database = createDb({ url: env.DATABASE_URL, max: args.dbPool, pipeline: args.dbPipeline, logger, timeouts: args.db, genericPlans: true })
  let metricsServer: MetricsServer | undefined
  let replicas: ReadReplicas | undefined
  if (env.DATABASE_READ_URL.length > 0) {
    replicas = createReadReplicas({
      primary: database.db,
      urls: env.DATABASE_READ_URL,
      maxLagMs: args.replicaMaxLagMs,
      poolSize: args.dbPool,
      pipeline: args.dbPipeline,
      timeouts: args.db,
      genericPlans: true,
      logger,
    })
    await replicas.probe()
  }
  try {
    const rpc = createRpcServer(
      {
        db: database.db,
        logger,
        reads: replicas,
        metrics,
        uncleFilter: args.nullFilter ? createUncleFilter({ url: env.DATABASE_LISTEN_URL ?? env.DATABASE_URL, networks: config.networks.map((n) => n.name), logger }) : undefined,
      },
      {
        networks: config.networks,
        limits: args.limits,
        cacheEntries: args.cacheEntries,
        fastPath: args.fastPath,
        requestsPerTurn: args.requestsPerTurn,
        rateLimits: args.rateLimits
          ? { redisUrl: env.REDIS_URL, prefix: redisKeyPrefix(env.DATABASE_URL), commandTimeoutMs: args.redisTimeoutMs }
          : undefined,
        dbDeadlineMs: args.dbDeadlineMs,
        dbStatements: args.dbPool * args.dbPipeline,
        dbMaxBatch: args.dbMaxBatch,
        listenBacklog: args.listenBacklog,
        maxEventLoopLagMs: args.maxEventLoopLagMs,
        partner: args.partner,
        usageFlushMs: args.usageFlushMs,
        keyLookupTimeoutMs: args.keyLookupTimeoutMs,
        readyTimeoutMs: args.readyTimeoutMs,
      },
    )
    if (cluster.isWorker) answerReadinessRequests(rpc.readiness)
    let address: AddressInfo
    try {
      address = await rpc.listen(args.port, args.host)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      logger.error({ msg: 'rpc cannot listen', host: args.host, port: args.port, error: reason })
      if (cluster.isPrimary) process.stderr.write(`rpc: cannot listen on ${args.host}:${args.port}: ${reason}\n`)
      return cluster.isWorker ? cannotListenExitCode : 1
    }
    if (metrics !== undefined && cluster.isPrimary)
      metricsServer = await metricsEndpoint(args, logger, () => metrics.registry, async () => adminReady(await rpc.readiness()))
    if (cluster.isPrimary) process.stdout.write(listeningLine(args, address.port, config))
    logger.info({ msg: 'rpc listening', port: address.port, host: args.host, networks: config.networks.map((n) => n.name) })
    const signal = await signalled
    logger.info({ msg: 'stopping rpc', signal })
    await rpc.close()
    return 0
  } finally {
    await metricsServer?.close()
    await replicas?.close()
    await database.close()
    // Note: a cluster worker's IPC channel keeps it alive until it disconnects.
    if (cluster.isWorker) cluster.worker?.disconnect()
  }
}
