import type { Logger } from '@uncle-rpc/config'
import type { Redis } from 'ioredis'

// The job queues of a deployment live in Redis under `uncle-rpc:<database name>` (redisKeyPrefix),
// so a database dropped and created again under the same name, or another server's database of
// that name, would find the first one's jobs there. The prefix's `database` key holds the
// identity (database_identity) of the database the queues were made for.

/** The Redis key that names the database a prefix's queues belong to. */
export function ownerKey(prefix: string): string {
  return `${prefix}:database`
}

// Note: read the old owner and write the new one in one step, so of two indexers starting at once only one clears.
const swapOwner = `local old = redis.call('GET', KEYS[1]) redis.call('SET', KEYS[1], ARGV[1]) return old`

/** Deletes every key under `prefix` but the owner key; returns how many. */
async function clearPrefix(redis: Redis, prefix: string): Promise<number> {
  const keep = ownerKey(prefix)
  let cursor = '0'
  let cleared = 0
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000)
    cursor = next
    const doomed = keys.filter((k) => k !== keep)
    if (doomed.length > 0) cleared += await redis.unlink(...doomed)
  } while (cursor !== '0')
  return cleared
}

export type QueueOwner = {
  /**
   * Resolves true when the queues are this database's, claiming them on the first successful call
   * (clearing the queues of another database, logged once); false when another database's indexer
   * has claimed them since (logged once): the caller then queues nothing. Rejects while Redis or
   * Postgres cannot be asked; the next call tries again.
   */
  check(): Promise<boolean>
}

/**
 * The claim of one process on the queues under `prefix`, for the database whose identity
 * `identity()` reads. Nothing is cleared when the queues already name this database, or name none
 * (made before queues were tagged: the planner's reconciliation keeps those honest).
 */
export function createQueueOwner(redis: Redis, prefix: string, identity: () => Promise<string>, logger: Logger): QueueOwner {
  let ours: string | undefined
  let claiming: Promise<string> | undefined
  let warnedTaken = false

  async function claim(): Promise<string> {
    const id = await identity()
    const previous = (await redis.eval(swapOwner, 1, ownerKey(prefix), id)) as string | null
    if (previous !== null && previous !== id) {
      const cleared = await clearPrefix(redis, prefix)
      logger.warn({
        msg: 'the job queues in Redis were made for another database of this name (dropped and created again, or another server\'s); cleared them, planning from what this database holds',
        redis_prefix: prefix,
        keys_cleared: cleared,
      })
    }
    return id
  }

  return {
    async check() {
      if (ours === undefined) {
        claiming ??= claim().finally(() => {
          claiming = undefined
        })
        ours = await claiming
        return true
      }
      const owner = await redis.get(ownerKey(prefix))
      if (owner === null) await redis.set(ownerKey(prefix), ours, 'NX')
      if (owner === ours || owner === null) {
        warnedTaken = false
        return true
      }
      if (!warnedTaken) {
        warnedTaken = true
        logger.error({
          msg: 'another database of this name uses the same Redis queues; queuing nothing here. Give each deployment its own database name or Redis',
          redis_prefix: prefix,
        })
      }
      return false
    },
  }
}
