import type { NetworkConfig } from '@uncle-rpc/config'
import { BaseError } from '@uncle-rpc/errors'
import { createWakeableSleep } from '@uncle-rpc/process'
import type { Redis } from 'ioredis'
import { type Era1Files, openEra1Files } from '../era1/era1Files.js'
import { NetworkStartError } from '../errors.js'
import type { IndexerOptions } from '../options.js'
import type { PlanSnapshot } from '../planning/planner.js'
import type { QueueOwner } from '../planning/queueOwner.js'
import { createUpstream, type Upstream } from '../upstream/createUpstream.js'
import type { ChainTarget } from '../writing/linkage.js'
import { startFollowingHead } from './followHead.js'
import { type JobQueues, type JobQueuesDeps, startJobQueues } from './jobQueues.js'
import { type PlanLoop, startPlanLoop } from './planLoop.js'
import { createProbe } from './probe.js'
import { waitForNetwork } from './waitForNetwork.js'

export type NetworkRunnerDeps = JobQueuesDeps & {
  /** Redis for the head lease. */
  redis: Redis
  /** Whether the queues under `prefix` are this database's; checked before each planning pass queues anything. */
  owner?: QueueOwner | undefined
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

const asBaseError = (error: unknown): BaseError =>
  error instanceof BaseError ? error : new NetworkStartError(error instanceof Error ? error.message : String(error), { cause: error })

/**
 * Starts one network in the background, in steps: open its sources (the node's clients, the era1
 * files), wait until the node answers and the network is registered (waitForNetwork.ts), then
 * start its job queues and workers (jobQueues.ts), its planning (planLoop.ts) and, without a
 * toBlock, head following (followHead.ts). Nothing it waits on blocks another network.
 */
export function startNetworkRunner(
  deps: NetworkRunnerDeps,
  config: NetworkConfig,
  options: IndexerOptions,
  hooks: NetworkRunnerHooks,
  initial: 'checked' | 'unchecked',
): NetworkRunner {
  const logger = deps.logger.child({ network: config.name })
  const target: ChainTarget = { network: config.name, fromBlock: BigInt(config.fromBlock), confirmations: BigInt(config.confirmations) }
  // Note: the requests are asked again by their job's next attempt (or the head follower's next step).
  const onFailed = (info: { failed: number; reason: string }) => logger.warn({ msg: 'upstream retry', ...info })
  const counted = (client: Upstream) => deps.metrics?.countUpstream(config.name, client) ?? client
  const nodeClient = (maxInFlight: number) =>
    config.rpcUrl === undefined ? undefined : counted(createUpstream({ url: config.rpcUrl, batchSize: options.batchSize, maxInFlight, onFailed }))

  // Step 1: the sources.
  const upstream = nodeClient(options.maxInFlight)
  const probe = config.rpcUrl === undefined ? undefined : counted(createProbe({ ...config, rpcUrl: config.rpcUrl }))
  let era1: Era1Files | undefined
  let state: NetworkRunner['state'] = 'waiting'
  let stopped = false
  const pause = createWakeableSleep()
  if (config.era1 !== undefined) {
    try {
      era1 = openEra1Files({ ...config, era1: config.era1 }, { keepEra1: options.keepEra1, verifyThreads: options.era1VerifyThreads }, logger)
    } catch (error) {
      stopped = true
      queueMicrotask(() => hooks.onFatal(asBaseError(error)))
    }
  }

  // Step 2: wait for the node and register the network; step 3: queues, planning, the head.
  let queues: JobQueues | undefined
  let planLoop: PlanLoop | undefined
  let head: { stop(): Promise<void> } | undefined
  const started = waitForNetwork({ db: deps.db, logger, probe, sleep: pause.sleep, stopped: () => stopped }, config, initial).then(
    () => {
      if (stopped) return
      state = 'running'
      queues = startJobQueues(deps, config, options, { upstream, era1, target })
      planLoop = startPlanLoop(
        { db: deps.db, logger, owner: deps.owner, probe, hasNode: upstream !== undefined, era1, queues, onPlanned: hooks.onPlanned },
        config,
        options,
        target,
      )
      const headUpstream = config.toBlock === undefined ? nodeClient(2) : undefined
      if (headUpstream) head = startFollowingHead({ ...deps, logger, upstream: headUpstream }, config, options, target)
    },
    (error: unknown) => {
      if (!stopped) hooks.onFatal(asBaseError(error))
    },
  )

  return {
    config,
    get state() {
      return state
    },
    get done() {
      return planLoop?.done ?? false
    },
    get lastPlan() {
      return planLoop?.lastPlan
    },
    get upstreamWindow() {
      return upstream?.governor.limit ?? 0
    },
    async stop() {
      if (stopped) return
      stopped = true
      pause.wake()
      planLoop?.stop()
      await started
      await head?.stop()
      await queues?.close()
      await Promise.all([upstream?.close(), probe?.close(), era1?.close()])
      state = 'stopped'
    },
  }
}
