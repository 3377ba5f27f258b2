import { type RedisTarget, type RedisTuning, redisOptions } from '@uncle-rpc/config'
import type { ConnectionOptions } from 'bullmq'

/**
 * BullMQ's `connection` for REDIS_URL's target (one server or Sentinel) with `tuning`: the
 * options of packages/config's factory, from which BullMQ makes its clients.
 */
export function bullmqConnection(target: RedisTarget | string, tuning: RedisTuning): ConnectionOptions {
  // Note: the same object; ioredis types its optional options `T | undefined` and BullMQ `T`,
  // which exactOptionalPropertyTypes tells apart.
  return redisOptions(target, tuning) as ConnectionOptions
}
