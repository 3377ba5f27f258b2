import { BaseError } from '@uncle-rpc/errors'
import type { Logger, NetworkConfig } from '@uncle-rpc/config'
import { type Db, registerNetwork } from '@uncle-rpc/db'
import { type ConnectionOptions, Queue, type Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import { ChainIdMismatchError, NetworkStartError } from '../errors.js'
import { openEra1Files, type Era1Files } from '../era1/era1Files.js'
import { type PlanSnapshot, planNetwork } from '../planning/planner.js'
import type { QueueOwner } from '../planning/queueOwner.js'
import { jobBackoff } from '../jobs/jobBackoff.js'
import { era1QueueName, queueName } from '../jobs/jobs.js'
import type { ChainTarget } from '../writing/linkage.js'
import type { IndexerMetrics } from '../metrics.js'
import type { IndexerOptions } from '../options.js'
import type { Progress } from '../progress.js'
import { startTipFollower, type TipFollower } from '../headFollowing/tipFollower.js'
import { createTipLock } from '../headFollowing/tipLock.js'
import { createUpstream, type Upstream } from '../upstream/createUpstream.js'
import { createJobWorker } from '../jobs/jobWorker.js'

export type NetworkRunnerDeps = {
  db: Db
  /** Redis for the BullMQ workers (commands wait through a reconnect). */
  connection: ConnectionOptions
  /** Redis for the queues this process adds jobs to and reads (commands fail at once while disconnected). */
  queueConnection: ConnectionOptions
  prefix: string
  logger: Logger
  progress: Progress
  redis: Redis
  /** Whether the queues under `prefix` are this database's; checked before each planning pass queues anything. */
  owner?: QueueOwner | undefined
  /** Absent: metrics off. */
  metrics?: IndexerMetrics | undefined
}


/** One network's indexing: connection to its node, range jobs, and (without a toBlock) the tip follower. */
export type NetworkRunner = {
  readonly config: NetworkConfig
  /** `waiting`: the node has not answered yet (retrying with backoff); nothing else runs. */
  readonly state: 'waiting' | 'running' | 'stopped'
  /** Every block of a bounded network is indexed (never true without a toBlock). */
  readonly done: boolean
  readonly lastPlan: PlanSnapshot | undefined
  readonly upstreamWindow: number
  stop(): Promise<void>
}

export type NetworkRunnerHooks = {
  /** A configuration error found later (a node that came up serving another chain). */
  onFatal(error: BaseError): void
  /** After each successful planning pass. */
  onPlanned(): void
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** A quick client for probes (chainId, head): short timeout, one request at a time, so a dead node costs seconds. */
export function createProbe(config: NetworkConfig & { rpcUrl: string }): Upstream {
  return createUpstream({ url: config.rpcUrl, timeoutMs: 5_000, maxInFlight: 1 })
}

/**
 * Asks the node for its chain id once: `'ok'`, or why it could not be asked. Throws
 * {@link ChainIdMismatchError} when it answers with another chain.
 */
export async function probeChainId(config: NetworkConfig, probe: Upstream | undefined): Promise<'ok' | { unreachable: string }> {
  if (!probe) return 'ok'
  let chainId: bigint
  try {
    chainId = await probe.chainId()
  } catch (error) {
    return { unreachable: errorText(error) }
  }
  if (chainId !== BigInt(config.chainId)) throw new ChainIdMismatchError(config.name, config.chainId, chainId, 'the node')
  return 'ok'
}

/**
 * Starts one network in the background. Until its node answers (`checked` skips the first
 * probe) it only retries, with backoff; then it registers the network, runs its BullMQ worker,
 * plans range jobs on its own timer, and follows the head when the network has no toBlock.
 * Nothing it waits on blocks another network.
 */
export function startNetworkRunner(
  deps: NetworkRunnerDeps,
  config: NetworkConfig,
  options: IndexerOptions,
  hooks: NetworkRunnerHooks,
  initial: 'checked' | 'unchecked',
): NetworkRunner {
  const logger = deps.logger.child({ network: config.name })
  const target: ChainTarget = {
    network: config.name,
    fromBlock: BigInt(config.fromBlock),
    confirmations: BigInt(config.confirmations),
  }
  // Note: the requests are asked again by their job's next attempt (or the head follower's next step).
  const onFailed = (info: { failed: number; reason: string }) => logger.warn({ msg: 'upstream retry', ...info })
  const counted = (client: Upstream) => deps.metrics?.countUpstream(config.name, client) ?? client
  const rpcUrl = config.rpcUrl
  const upstream =
    rpcUrl === undefined
      ? undefined
      : counted(createUpstream({ url: rpcUrl, batchSize: options.batchSize, maxInFlight: options.maxInFlight, onFailed }))
  const probe = rpcUrl === undefined ? undefined : counted(createProbe({ ...config, rpcUrl }))
  const era1Url = config.era1
  let era1: Era1Files | undefined
  let era1Queue: Queue | undefined
  let era1Worker: Worker | undefined
  let uncoveredWarned = false
  let state: NetworkRunner['state'] = 'waiting'
  let stopped = false
  let done = false
  let lastPlan: PlanSnapshot | undefined
  let wake: (() => void) | undefined
  let queue: Queue | undefined
  let worker: Worker | undefined
  let tip: TipFollower | undefined
  let tipUpstream: Upstream | undefined
  let planTimer: NodeJS.Timeout | undefined
  // Invariant: at most one planning pass at a time; `lastPlanAt` is when the last one ended.
  let planning = false
  let lastPlanAt = 0

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer)
        wake = undefined
        resolve()
      }
      const timer = setTimeout(finish, ms)
      wake = finish
    })

  async function plan(q: Queue): Promise<void> {
    if (config.toBlock === undefined && !probe) return
    const to = config.toBlock !== undefined ? BigInt(config.toBlock) : (await (probe as Upstream).blockNumber()) - target.confirmations
    const result = await planNetwork(
      { db: deps.db, logger, rangeQueue: upstream ? q : undefined, era1Queue, era1, owner: deps.owner },
      { network: config.name, from: target.fromBlock, to, rangeSize: BigInt(options.rangeSize), warnUncovered: !uncoveredWarned },
    )
    if (result.warnedUncovered) uncoveredWarned = true
    lastPlan = result.snapshot
    done = config.toBlock !== undefined && result.nothingLeft
  }

  const planSoon = () => {
    if (planning || stopped || !queue) return
    planning = true
    const q = queue
    plan(q)
      .then(
        () => hooks.onPlanned(),
        (error: unknown) => logger.warn({ msg: 'planning failed; will retry', error: errorText(error) }),
      )
      .finally(() => {
        planning = false
        lastPlanAt = Date.now()
      })
  }

  async function waitForNode(): Promise<void> {
    for (let failures = 0; !stopped; ) {
      let problem: string | undefined
      if (initial === 'unchecked' || failures > 0) {
        const outcome = await probeChainId(config, probe)
        if (outcome !== 'ok') problem = outcome.unreachable
      }
      if (problem === undefined) {
        try {
          const registered = await registerNetwork(deps.db, { name: config.name, chainId: BigInt(config.chainId) })
          if (registered.mismatch)
            throw new ChainIdMismatchError(config.name, config.chainId, registered.mismatch.stored, 'the database')
          if (failures > 0) logger.info({ msg: 'network available; indexing', after_attempts: failures + 1 })
          return
        } catch (error) {
          if (error instanceof ChainIdMismatchError) throw error
          problem = `database: ${errorText(error)}`
        }
      }
      failures++
      const delayMs = Math.min(30_000, 1_000 * 2 ** Math.min(failures - 1, 5))
      logger.warn({ msg: 'network unavailable; will retry', error: problem, retry_in_ms: delayMs })
      await sleep(delayMs)
    }
  }

  function run(): void {
    state = 'running'
    const newQueue = (name: string) => {
      const q = new Queue(name, {
        connection: deps.queueConnection,
        prefix: deps.prefix,
        defaultJobOptions: {
          attempts: options.jobAttempts,
          backoff: jobBackoff,
          removeOnComplete: { count: 1_000 },
          removeOnFail: false,
        },
      })
      // Note: without a listener BullMQ prints connection errors to stderr as raw stacks.
      q.on('error', (error) => logger.warn({ msg: 'queue connection error (Redis)', error: error.message }))
      return q
    }
    queue = newQueue(queueName(config.name))
    const workerDeps = { connection: deps.connection, prefix: deps.prefix, db: deps.db, upstream, era1, logger: deps.logger, progress: deps.progress, metrics: deps.metrics }
    const workerOptions = {
      network: config.name,
      target,
      verificationAttempts: options.verificationAttempts,
      lockDurationMs: options.lockDurationMs,
    }
    // Re-plan when a queue runs dry or a job ends (at most once a second), so the last job's end is
    // noticed at once (BullMQ's 'drained' can come seconds late) and refused work is not waited on.
    let replanQueued = false
    const replanSoon = () => {
      if (replanQueued) return
      replanQueued = true
      setTimeout(
        () => {
          replanQueued = false
          planSoon()
        },
        Math.max(0, lastPlanAt + 1_000 - Date.now()),
      ).unref()
    }
    // Note: when the job that ended was the queue's last, plan at once: with --exit-when-done that
    // pass is the one that notices the end (a throttled one could idle up to a second).
    const replanAfterJob = (q: Queue) => {
      replanSoon()
      q.getJobCounts('waiting', 'active', 'delayed', 'prioritized').then(
        (counts) => {
          if (Object.values(counts).every((n) => n === 0)) planSoon()
        },
        () => {},
      )
    }
    const replanWhenDrained = (w: Worker, q: Queue) => {
      w.on('drained', replanSoon)
      w.on('completed', () => replanAfterJob(q))
      w.on('failed', replanSoon)
    }
    if (upstream) {
      worker = createJobWorker(workerDeps, { ...workerOptions, queue: queueName(config.name), concurrency: options.concurrency })
      replanWhenDrained(worker, queue)
    }
    if (era1) {
      // Note: a queue of its own, so epoch files (megabytes each, held in memory) run a few at a time.
      era1Queue = newQueue(era1QueueName(config.name))
      era1Worker = createJobWorker(workerDeps, { ...workerOptions, queue: era1QueueName(config.name), concurrency: options.era1Concurrency })
      replanWhenDrained(era1Worker, era1Queue)
    }
    planTimer = setInterval(planSoon, options.planIntervalMs)
    planSoon()
    if (config.toBlock === undefined && rpcUrl !== undefined) {
      tipUpstream = counted(createUpstream({ url: rpcUrl, batchSize: options.batchSize, maxInFlight: 2, onFailed }))
      const lock = createTipLock(deps.redis, {
        key: `${deps.prefix}:tip:${config.name}`,
        ttlMs: options.tipLockTtlMs,
        onLost: (reason) =>
          logger.warn({
            msg:
              reason === 'taken'
                ? 'lost the tip lease: another process holds it and follows the head now'
                : 'lost the tip lease: Redis did not answer for longer than the lease; taking it again once it does',
          }),
      })
      tip = startTipFollower(
        { db: deps.db, upstream: tipUpstream, logger, lock, progress: deps.progress },
        { target, pollIntervalMs: options.pollIntervalMs, lockRetryMs: options.tipLockTtlMs / 2, maxBatch: options.tipBatch },
      )
    }
  }

  if (era1Url !== undefined) {
    try {
      era1 = openEra1Files({ ...config, era1: era1Url }, { keepEra1: options.keepEra1, verifyThreads: options.era1VerifyThreads }, logger)
    } catch (error) {
      stopped = true
      queueMicrotask(() => hooks.onFatal(error instanceof BaseError ? error : new NetworkStartError(errorText(error), { cause: error })))
    }
  }

  const started = waitForNode().then(
    () => {
      if (!stopped) run()
    },
    (error: unknown) => {
      if (!stopped) hooks.onFatal(error instanceof BaseError ? error : new NetworkStartError(errorText(error), { cause: error }))
    },
  )

  return {
    config,
    get state() {
      return state
    },
    get done() {
      return done
    },
    get lastPlan() {
      return lastPlan
    },
    get upstreamWindow() {
      return upstream?.governor.limit ?? 0
    },
    async stop() {
      if (stopped) return
      stopped = true
      wake?.()
      clearInterval(planTimer)
      await started
      await tip?.stop()
      // Note: Worker.close() waits for in-flight jobs to finish, so no range is left half-done.
      await Promise.all([worker?.close(), era1Worker?.close()])
      await Promise.all([queue?.close(), era1Queue?.close()])
      await Promise.all([upstream?.close(), probe?.close(), tipUpstream?.close(), era1?.close()])
      state = 'stopped'
    },
  }
}
