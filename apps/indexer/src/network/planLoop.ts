import type { Logger, NetworkConfig } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import type { Queue, Worker } from 'bullmq'
import type { Era1Files } from '../era1/era1Files.js'
import type { IndexerOptions } from '../options.js'
import { type PlanSnapshot, planNetwork } from '../planning/planner.js'
import type { QueueOwner } from '../planning/queueOwner.js'
import type { Upstream } from '../upstream/createUpstream.js'
import type { ChainTarget } from '../writing/linkage.js'
import type { JobQueues } from './jobQueues.js'

export type PlanLoopDeps = {
  db: Db
  logger: Logger
  owner?: QueueOwner | undefined
  /** Asked for the head when the network has no toBlock; undefined without an rpcUrl. */
  probe: Upstream | undefined
  /** Whether range jobs are queued (the network has a node). */
  hasNode: boolean
  era1: Era1Files | undefined
  queues: JobQueues
  /** After each successful planning pass. */
  onPlanned(): void
}

/** A network's planning: passes on a timer and whenever a job ends or a queue runs dry. */
export type PlanLoop = {
  readonly lastPlan: PlanSnapshot | undefined
  /** Every block of a bounded network is indexed, or refused for good (never true without a toBlock). */
  readonly done: boolean
  stop(): void
}

/**
 * Starts planning a network: one pass at a time (planner.ts), every `planIntervalMs`, and again
 * at most a second after a job ends or a queue runs dry, so the last job's end is noticed at once
 * (BullMQ's 'drained' can come seconds late) and refused work is not waited on.
 */
export function startPlanLoop(deps: PlanLoopDeps, config: NetworkConfig, options: IndexerOptions, target: ChainTarget): PlanLoop {
  let lastPlan: PlanSnapshot | undefined
  let done = false
  let stopped = false
  let uncoveredWarned = false
  // Invariant: at most one planning pass at a time; `lastPlanAt` is when the last one ended.
  let planning = false
  let lastPlanAt = 0
  let replanQueued = false

  async function plan(): Promise<void> {
    if (config.toBlock === undefined && !deps.probe) return
    const to = config.toBlock !== undefined ? BigInt(config.toBlock) : (await (deps.probe as Upstream).blockNumber()) - target.confirmations
    const result = await planNetwork(
      {
        db: deps.db,
        logger: deps.logger,
        rangeQueue: deps.hasNode ? deps.queues.rangeQueue : undefined,
        era1Queue: deps.queues.era1Queue,
        era1: deps.era1,
        owner: deps.owner,
      },
      { network: config.name, from: target.fromBlock, to, rangeSize: BigInt(options.rangeSize), warnUncovered: !uncoveredWarned },
    )
    if (result.warnedUncovered) uncoveredWarned = true
    lastPlan = result.snapshot
    done = config.toBlock !== undefined && result.nothingLeft
  }

  const planSoon = () => {
    if (planning || stopped) return
    planning = true
    plan()
      .then(
        () => deps.onPlanned(),
        (error: unknown) => deps.logger.warn({ msg: 'planning failed; will retry', error: error instanceof Error ? error.message : String(error) }),
      )
      .finally(() => {
        planning = false
        lastPlanAt = Date.now()
      })
  }
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
  const replanAfterJob = (queue: Queue) => {
    replanSoon()
    queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized').then(
      (counts) => {
        if (Object.values(counts).every((n) => n === 0)) planSoon()
      },
      () => {},
    )
  }
  const watch = (worker: Worker, queue: Queue) => {
    worker.on('drained', replanSoon)
    worker.on('completed', () => replanAfterJob(queue))
    worker.on('failed', replanSoon)
  }

  for (const { worker, queue } of deps.queues.workers) watch(worker, queue)
  const timer = setInterval(planSoon, options.planIntervalMs)
  planSoon()
  return {
    get lastPlan() {
      return lastPlan
    },
    get done() {
      return done
    },
    stop() {
      stopped = true
      clearInterval(timer)
    },
  }
}
