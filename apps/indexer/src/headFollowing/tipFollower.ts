import { latestIndexedBlock } from '@uncle-rpc/db/chain'
import { createWakeableSleep } from '@uncle-rpc/process'
import { BlocksRejectedError } from '../errors.js'
import { fetchRange, requireFetched } from '../nodeSource/fetchRange.js'
import type { ChainTarget, ChainWriterDeps } from '../writing/linkage.js'
import type { Progress } from '../progress.js'
import type { TipLock } from './tipLock.js'
import { ingestBlocks } from '../nodeSource/ingest.js'

export type TipFollowerDeps = ChainWriterDeps & { lock: TipLock; progress: Progress }

export type TipFollowerOptions = {
  target: ChainTarget
  /** How often to ask the node for its head (also the fallback when a newHeads subscription fails). */
  pollIntervalMs: number
  /** How often a process without the lease tries to take it. */
  lockRetryMs: number
  /** Most blocks fetched and written per step while catching up. */
  maxBatch: number
}

export type TipFollower = { stop(): Promise<void> }

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Follows a network's head while holding its {@link TipLock}: ingests the blocks above
 * head − confirmations as they come (range jobs fill what is below), one step at a time, each
 * linked to the stored block below it; a block that does not link is a reorg, resolved by
 * {@link ingestBlocks} walking parents. When caught up it re-checks the head block every
 * poll, so a reorg that does not grow the chain is seen too. On a ws:// node a newHeads
 * notification only wakes it early: what it fetches is asked by number (eth_blockNumber, then
 * every height from the last stored one), since a node sends one head for several blocks and
 * only the new head on a reorg; after every (re)subscription it starts again from the database,
 * and polling goes on as a safety net. Failures back off and retry; they never stop it.
 */
export function startTipFollower(deps: TipFollowerDeps, options: TipFollowerOptions): TipFollower {
  const { target } = options
  const logger = deps.logger
  let stopped = false
  // Invariant: `next` is the lowest height not yet written by this follower; unknown (undefined)
  // until the first step after taking the lease.
  let next: bigint | undefined
  // Set when the subscription is (re)established: the next step starts again from the database.
  let resync = false
  let unsubscribe: (() => Promise<void>) | undefined

  // Note: a trigger (a head, a resubscription, stop) that comes while no sleep is running ends the
  // next one at once instead of being missed.
  const pause = createWakeableSleep()
  const sleep = (ms: number) => (stopped ? Promise.resolve() : pause.sleep(ms))
  const trigger = pause.wake

  const subscribe = async () => {
    if (!deps.upstream.subscribeNewHeads || unsubscribe) return
    try {
      unsubscribe = await deps.upstream.subscribeNewHeads({
        onHead: trigger,
        // Note: heads may have been missed while unsubscribed: start again from the stored chain.
        onSubscribed: () => {
          logger.info({ msg: 'subscribed to newHeads' })
          resync = true
          trigger()
        },
        onError: (error) => logger.warn({ msg: 'newHeads subscription lost; reconnecting, polling meanwhile', error: errorText(error) }),
      })
    } catch (error) {
      logger.warn({ msg: 'newHeads subscription failed; polling instead', error: errorText(error) })
    }
  }

  const dropSubscription = async () => {
    const current = unsubscribe
    unsubscribe = undefined
    await current?.().catch((error: unknown) => logger.debug({ msg: 'unsubscribe failed', error: errorText(error) }))
  }

  /** One step: returns true when there is more to fetch right away. */
  const step = async (): Promise<boolean> => {
    if (resync) {
      resync = false
      next = undefined
    }
    const head = await deps.upstream.blockNumber()
    if (head < target.fromBlock) return false
    if (next === undefined) {
      const line = head - target.confirmations
      let start = line + 1n > target.fromBlock ? line + 1n : target.fromBlock
      const latest = await latestIndexedBlock(deps.db, { network: target.network })
      if (latest && latest.number + 1n > start) start = latest.number + 1n
      next = start
      logger.info({ msg: 'following the head', from_block: start.toString(), node_head: head.toString() })
    }
    if (next > head + 1n) next = head + 1n
    // Caught up: fetch the head block again; writing it is a no-op unless the chain changed.
    const from = next > head ? head : next
    let to = head
    if (from + BigInt(options.maxBatch) - 1n < to) to = from + BigInt(options.maxBatch) - 1n
    const numbers: bigint[] = []
    for (let n = from; n <= to; n++) numbers.push(n)
    const started = performance.now()
    const { blocks, rejected } = requireFetched(target.network, await fetchRange(deps.upstream, numbers))
    if (rejected.length > 0) throw new BlocksRejectedError(target.network, rejected)
    blocks.sort((a, b) => (a.header.number < b.header.number ? -1 : 1))
    const result = await ingestBlocks(deps, target, blocks)
    const reached = result.reorg && result.reorg.to > to ? result.reorg.to : to
    next = reached + 1n
    if (result.written > 0)
      deps.progress.recordRange(target.network, {
        blocks: result.written,
        written: result.written,
        uncles: blocks.reduce((sum, b) => sum + b.uncles.length, 0),
        unclesWritten: result.unclesWritten,
        ms: performance.now() - started,
        reorgs: result.reorg !== undefined && result.reorg.replaced > 0 ? 1 : 0,
      })
    return next <= head
  }

  const loop = (async () => {
    let failures = 0
    while (!stopped) {
      if (!deps.lock.held) {
        next = undefined
        await dropSubscription()
        const acquired = await deps.lock.acquire().catch((error: unknown) => {
          logger.warn({ msg: 'tip lease unavailable (Redis)', error: errorText(error) })
          return false
        })
        if (!acquired) {
          await sleep(options.lockRetryMs)
          continue
        }
        await subscribe()
      }
      try {
        const more = await step()
        failures = 0
        if (!more) await sleep(options.pollIntervalMs)
      } catch (error) {
        failures++
        const delayMs = Math.min(30_000, 500 * 2 ** Math.min(failures, 6))
        logger.warn({ msg: 'following the head failed; will retry', error: errorText(error), retry_in_ms: delayMs })
        // Note: the stored chain may have moved meanwhile; start the next step from the database.
        next = undefined
        await sleep(delayMs)
      }
    }
    await dropSubscription()
    await deps.lock.release().catch((error: unknown) => logger.warn({ msg: 'releasing the tip lease failed', error: errorText(error) }))
  })()

  return {
    async stop() {
      stopped = true
      trigger()
      await loop
    },
  }
}
