import type { Logger } from '@uncle-rpc/config'
import { blockUncleCountByHash, canonicalBlockUncleCount } from '@uncle-rpc/db/chain'
import { createJsonRpcHandler, type JsonRpcHandler } from '@uncle-rpc/jsonrpc'
import { countCalls } from '../methods/countCalls.js'
import type { MethodContext } from '../methods/context.js'
import { defaultDeadlineMs } from '../methods/eth_getUncleByBlockHashAndIndex.js'
import { createFamilyReads } from '../methods/familyReads.js'
import { createMethods } from '../methods/index.js'
import { createReadGate, readPauseMs } from '../protection/readStallGuard.js'
import { type ReorgWatch, watchReorgs } from '../reads/byNumberCache.js'
import { type AnswerCache, createAnswerCache, defaultCacheEntries } from '../reads/cache.js'
import { createHeadTracker, type HeadTracker } from '../reads/heads.js'
import { createBlockKnown, createFindUncle, primaryReads } from '../reads/store.js'
import type { RpcLimits } from '../transport/limits.js'
import type { RpcServerDeps, RpcServerOptions } from './serverOptions.js'

export type ComposedMethods = {
  /** The answer cache by hash (the one the server's `cache` hands out). */
  cache: AnswerCache
  /** The answer cache by block number, dropped on every reorg (metrics report both). */
  numberCache: AnswerCache
  heads: HeadTracker
  /** Drops the by-number cache on a reorg; checked once at listen, stopped at close. */
  reorgWatch: ReorgWatch
  /** The method names served. */
  served: ReadonlySet<string>
  handler: JsonRpcHandler<MethodContext>
}

/**
 * The read side and the methods on it: the heads, the read gate and deadlines shared by every
 * read, the two answer caches, the method registry (counted when metrics are on) and the
 * JSON-RPC handler over it.
 */
export function composeMethods(deps: RpcServerDeps, options: RpcServerOptions, limits: RpcLimits): ComposedMethods {
  const { db, logger } = deps
  const cache = createAnswerCache({ maxEntries: options.cacheEntries ?? defaultCacheEntries })
  const deadlineMs = options.dbDeadlineMs ?? defaultDeadlineMs
  // Note: one gate for every read of the methods; a heads read that succeeds (the timer's, or a
  // /ready check's) proves the database answers and ends a pause at once, so the rpc is not
  // ready while its reads still pause, and answers again as soon as it is.
  const readGate = createReadGate({ cooldownMs: readPauseMs(deadlineMs) })
  const heads = createHeadTracker(
    { db, logger },
    {
      networks: options.networks.map((n) => n.name),
      intervalMs: options.headsIntervalMs,
      deadlineMs: options.readyTimeoutMs,
      onRead: () => {
        if (readGate.state !== 'closed') readGate.succeeded()
      },
    },
  )
  const onLocalFailure = createFailureLog(logger)
  const source = deps.reads ?? primaryReads(db)
  // Note: answers by number have a cache of their own, dropped on every reorg (byNumberCache.ts).
  const numberCache = createAnswerCache({ maxEntries: options.cacheEntries ?? defaultCacheEntries })
  const reorgWatch = watchReorgs({ db, logger }, { cache: numberCache, intervalMs: options.headsIntervalMs ?? 2000 })
  const served = createMethods({
    blockByHash: (params) => source.read((reader) => blockUncleCountByHash(reader, params)),
    canonicalBlock: (params) => source.read((reader) => canonicalBlockUncleCount(reader, params)),
    numberCache: deps.metrics?.countLookups(numberCache) ?? numberCache,
    reads: createFamilyReads({ deadlineMs, gate: readGate, onLocalFailure }),
    findUncle: deps.findUncle ?? createFindUncle(deps.reads ?? primaryReads(db), {
        onStatement: deps.metrics?.uncleRead,
        maxStatements: options.dbStatements,
        maxLookupsPerStatement: options.dbMaxBatch,
      }),
    blockKnown: deps.blockKnown ?? createBlockKnown(deps.reads ?? primaryReads(db)),
    cache: deps.metrics?.countLookups(cache) ?? cache,
    latest: heads.latest,
    deadlineMs,
    gate: readGate,
    onLocalFailure,
    absent: deps.uncleFilter?.absent,
  })
  const methods = deps.metrics === undefined ? served : countCalls(served, deps.metrics.methodCalled)
  const handler = createJsonRpcHandler<MethodContext>({
    methods,
    maxBatchSize: limits.maxBatchSize,
    onInternalError: (error, correlationId, context) =>
      logger.error({
        msg: 'internal error',
        correlation_id: correlationId,
        network: context.network.name,
        error,
      }),
  })
  return { cache, numberCache, heads, reorgWatch, served: new Set(Object.keys(served)), handler }
}

/** A failed or late database read, logged: one line per 10 s at most while the database fails, not one per request. */
function createFailureLog(logger: Logger): (error: unknown) => void {
  let localFailures = 0
  let lastFailureLog = 0
  return (error) => {
    localFailures++
    const now = Date.now()
    if (now - lastFailureLog < 10_000) return
    logger.warn({ msg: 'database read failed or missed its deadline', error: (error as Error).message, failures_since_last_line: localFailures })
    lastFailureLog = now
    localFailures = 0
  }
}
