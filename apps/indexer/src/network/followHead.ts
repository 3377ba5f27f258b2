import type { Logger, NetworkConfig } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import type { Redis } from 'ioredis'
import { startTipFollower } from '../headFollowing/tipFollower.js'
import { createTipLock } from '../headFollowing/tipLock.js'
import type { IndexerOptions } from '../options.js'
import type { Progress } from '../progress.js'
import type { Upstream } from '../upstream/createUpstream.js'
import type { ChainTarget } from '../writing/linkage.js'

export type FollowHeadDeps = {
  db: Db
  logger: Logger
  progress: Progress
  redis: Redis
  prefix: string
  /** The head follower's own client of the network's node (two requests in flight). */
  upstream: Upstream
}

/**
 * Follows a live network's head (no toBlock) in whichever process holds the network's lease in
 * Redis (`<prefix>:tip:<network>`); the others take it over when it lapses.
 */
export function startFollowingHead(deps: FollowHeadDeps, config: NetworkConfig, options: IndexerOptions, target: ChainTarget): { stop(): Promise<void> } {
  const lock = createTipLock(deps.redis, {
    key: `${deps.prefix}:tip:${config.name}`,
    ttlMs: options.tipLockTtlMs,
    onLost: (reason) =>
      deps.logger.warn({
        msg:
          reason === 'taken'
            ? 'lost the tip lease: another process holds it and follows the head now'
            : 'lost the tip lease: Redis did not answer for longer than the lease; taking it again once it does',
      }),
  })
  const follower = startTipFollower(
    { db: deps.db, upstream: deps.upstream, logger: deps.logger, lock, progress: deps.progress },
    { target, pollIntervalMs: options.pollIntervalMs, lockRetryMs: options.tipLockTtlMs / 2, maxBatch: options.tipBatch },
  )
  return {
    async stop() {
      await follower.stop()
      await deps.upstream.close()
    },
  }
}
