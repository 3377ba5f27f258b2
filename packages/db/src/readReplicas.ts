import { sql } from 'drizzle-orm'
import { createDb, type CreateDbReturnType, type Db, type DbLogger, type DbTimeouts } from './client.js'

// Read routing over streaming replicas. Not drizzle's `withReplicas`: it picks a replica at
// random for every read with no idea of health or lag, and a stopped replica would fail requests.
// Here each replica is probed, skipped while it lags or does not answer, and a read that fails
// on a replica is retried once on the primary.

export type ReplicaState = {
  /** host:port/database of the replica (no credentials). */
  name: string
  /** True while the replica answers, is replicating (see `replicating`) and lags no more than `maxLagMs`. */
  usable: boolean
  /**
   * True while the server is in recovery and reports a replay position, i.e. follows a primary;
   * false for a promoted server or a primary named as a replica; null until probed or when it did not answer.
   */
  replicating: boolean | null
  /** Estimated replication lag at the last probe (ms); null until probed or when it did not answer. */
  lagMs: number | null
  /** Why it is skipped, if it is. */
  reason: string | null
  /** Reads this replica served. */
  reads: number
}

export type ReadReplicas = {
  /** Runs a read on a usable replica (round robin), or on the primary when none is usable or the replica read fails. */
  read<T>(query: (db: Db) => Promise<T>): Promise<T>
  /** Each replica's state, for /ready and status output. */
  states(): ReplicaState[]
  /** Reads the primary served. */
  primaryReads(): number
  /** Probes now (the timer also does, every `probeIntervalMs`). */
  probe(): Promise<void>
  /** Stops probing and closes the replicas' pools (not the primary's). */
  close(): Promise<void>
}

export type CreateReadReplicasParameters = {
  primary: Db
  /** postgres:// URLs of the replicas (DATABASE_READ_URL, comma-separated). */
  urls: readonly string[]
  /** A replica further behind than this is skipped until it catches up. Default 1,000 ms. */
  maxLagMs?: number
  /** How often the primary's WAL position and each replica's replay position are read. Default 250 ms. */
  probeIntervalMs?: number
  /** Pool size per replica. Default 10. */
  poolSize?: number
  /** Statements in flight per replica connection (createDb's pipeline). Default 1. */
  pipeline?: number | undefined
  /** Bounds of the replicas' connections (createDb); connecting is bounded by 4 probe periods (at least 1 s) unless given. */
  timeouts?: Partial<DbTimeouts> | undefined
  /** Plan each prepared statement once per connection (createDb's genericPlans). Default false. */
  genericPlans?: boolean | undefined
  logger?: DbLogger
}

type Sample = { at: number; lsn: bigint }
type Replica = ReplicaState & { database: CreateDbReturnType }

/** A WAL position, `16/B374D848`, as a number of bytes. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/')
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`)
}

/**
 * Replication lag from WAL positions, so that an idle primary never looks like a lagging replica
 * (`now() - pg_last_xact_replay_timestamp()` grows while nothing is written). `samples` are the
 * primary's positions over time, oldest first. A replica that has replayed the latest one has no
 * lag; otherwise the lag is the age of the first sample it has not replayed (the write it lacks
 * happened no later than that), or of the oldest sample kept when it is further behind than all.
 */
export function lagFromSamples(samples: readonly Sample[], replayed: bigint, now: number): number {
  const latest = samples[samples.length - 1]
  if (latest === undefined || replayed >= latest.lsn) return 0
  const firstAhead = samples.find((s) => s.lsn > replayed) ?? samples[0]
  return Math.max(0, now - (firstAhead?.at ?? now))
}

function describe(url: string): string {
  const u = new URL(url)
  return `${u.hostname}:${u.port || '5432'}${u.pathname}`
}

/** What a probe reads from a replica: `pg_is_in_recovery()` and `pg_last_wal_replay_lsn()`. */
export type ReplicaProbe = { inRecovery: boolean; replayLsn: string | null }

/**
 * Whether a probed server is a replica that can be read, and why not: a server that is not in
 * recovery (promoted, or a primary given as a replica) or has no replay position no longer
 * follows the primary, however fresh it looks; otherwise its lag decides.
 */
export function judgeReplica(
  probe: ReplicaProbe,
  samples: readonly Sample[],
  maxLagMs: number,
  now: number,
): { usable: boolean; replicating: boolean; lagMs: number | null; reason: string | null } {
  if (!probe.inRecovery)
    return { usable: false, replicating: false, lagMs: null, reason: 'not a replica: not in recovery (promoted, or a primary)' }
  if (probe.replayLsn === null)
    return { usable: false, replicating: false, lagMs: null, reason: 'not a replica: in recovery but reports no replay position' }
  const lag = lagFromSamples(samples, parseLsn(probe.replayLsn), now)
  if (lag > maxLagMs) return { usable: false, replicating: true, lagMs: lag, reason: `lags ${lag} ms (> ${maxLagMs} ms)` }
  return { usable: true, replicating: true, lagMs: lag, reason: null }
}

/** Routes reads to streaming replicas of `primary` by health and lag; see the file comment. */
export function createReadReplicas({
  primary,
  urls,
  maxLagMs = 1000,
  probeIntervalMs = 250,
  poolSize = 10,
  pipeline = 1,
  timeouts,
  genericPlans = false,
  logger,
}: CreateReadReplicasParameters): ReadReplicas {
  const replicas: Replica[] = urls.map((url) => ({
    name: describe(url),
    database: createDb({
      url,
      max: poolSize,
      pipeline,
      timeouts: { connectTimeoutMs: Math.max(1000, 4 * probeIntervalMs), ...timeouts },
      genericPlans,
      ...(logger ? { logger } : {}),
    }),
    usable: false,
    replicating: null,
    lagMs: null,
    reason: 'not probed yet',
    reads: 0,
  }))
  // Note: enough history to tell any lag up to 4× the bound; older samples carry no information.
  const samples: Sample[] = []
  let next = 0
  let fromPrimary = 0
  let probing: Promise<void> | undefined

  const setState = (replica: Replica, usable: boolean, replicating: boolean | null, lagMs: number | null, reason: string | null) => {
    if (usable !== replica.usable || (replicating === false && replica.replicating !== false)) {
      const msg = usable ? 'read replica in use' : replicating === false ? 'read replica skipped: not replicating' : 'read replica skipped'
      const entry = { msg, replica: replica.name, lag_ms: lagMs, reason }
      if (usable) logger?.info(entry)
      else logger?.warn(entry)
    }
    replica.usable = usable
    replica.replicating = replicating
    replica.lagMs = lagMs
    replica.reason = reason
  }

  async function probeOnce(): Promise<void> {
    const now = Date.now()
    try {
      const [row] = (await primary.execute<{ lsn: string }>(sql`select pg_current_wal_lsn()::text as lsn`)).rows
      if (row) samples.push({ at: now, lsn: parseLsn(row.lsn) })
    } catch (error) {
      // Note: without the primary's position no lag can be told; replicas keep their last state.
      logger?.warn({ msg: 'read replica probe: primary did not answer', error: (error as Error).message })
      return
    }
    while (samples.length > 1 && (samples[0]?.at ?? now) < now - 4 * maxLagMs) samples.shift()
    await Promise.all(
      replicas.map(async (replica) => {
        try {
          const result = await replica.database.db.execute<{ in_recovery: boolean; lsn: string | null }>(
            sql`select pg_is_in_recovery() as in_recovery, pg_last_wal_replay_lsn()::text as lsn`,
          )
          const row = result.rows[0]
          const judged = judgeReplica({ inRecovery: row?.in_recovery === true, replayLsn: row?.lsn ?? null }, samples, maxLagMs, Date.now())
          setState(replica, judged.usable, judged.replicating, judged.lagMs, judged.reason)
        } catch (error) {
          setState(replica, false, null, null, `does not answer: ${(error as Error).message}`)
        }
      }),
    )
  }

  const probe = () => {
    probing ??= probeOnce().finally(() => {
      probing = undefined
    })
    return probing
  }
  const timer = setInterval(() => void probe(), probeIntervalMs)
  timer.unref()
  void probe()

  function pick(): Replica | undefined {
    for (let i = 0; i < replicas.length; i++) {
      const replica = replicas[(next + i) % replicas.length]
      if (replica?.usable) {
        next = (next + i + 1) % replicas.length
        return replica
      }
    }
    return undefined
  }

  return {
    async read(query) {
      const replica = pick()
      if (replica) {
        try {
          const result = await query(replica.database.db)
          replica.reads++
          return result
        } catch (error) {
          // Note: a replica that fails a read did not answer: skipped, with no replication state or
          // lag to report, until a probe finds it well; the read goes to the primary. (Keeping the
          // last probe's state showed a killed replica as still replicating until the next probe.)
          setState(replica, false, null, null, `read failed: ${(error as Error).message}`)
        }
      }
      fromPrimary++
      return query(primary)
    },
    states: () => replicas.map(({ database: _database, ...state }) => ({ ...state })),
    primaryReads: () => fromPrimary,
    probe,
    async close() {
      clearInterval(timer)
      await probing
      await Promise.all(replicas.map((r) => r.database.close()))
    },
  }
}
