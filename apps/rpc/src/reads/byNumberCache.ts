import type { Logger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { latestReorgId } from '@uncle-rpc/db/chain'
import type { AnswerCache } from './cache.js'

/** Keeps the by-number answer cache true to the canonical chain. */
export type ReorgWatch = {
  /** Reads the latest recorded reorg now; the cache is dropped if it changed (or cannot be read). */
  check(): Promise<void>
  stop(): void
}

/**
 * Answers by block number stay true only while the height's block does: every reorg the indexer
 * records (the reorgs table) drops the whole by-number cache, read every `intervalMs` (the heads'
 * period). Only answers at least `confirmations` deep are cached, so a reorg that reaches them
 * is rare; until its row is read (one period at most) such an answer may still be served.
 * A failed read drops the cache too: what cannot be checked is not kept.
 */
export function watchReorgs({ db, logger }: { db: Db; logger: Logger }, { cache, intervalMs }: { cache: AnswerCache; intervalMs: number }): ReorgWatch {
  let seen: bigint | undefined
  let failing = false
  async function check(): Promise<void> {
    try {
      const id = await latestReorgId(db)
      if (id !== seen) cache.clear()
      seen = id
      failing = false
    } catch (error) {
      cache.clear()
      seen = undefined
      if (!failing) logger.warn({ msg: 'reading the latest reorg failed; answers by block number are not cached until it is read', error: (error as Error).message })
      failing = true
    }
  }
  const timer = setInterval(() => void check(), intervalMs)
  timer.unref()
  return { check, stop: () => clearInterval(timer) }
}
