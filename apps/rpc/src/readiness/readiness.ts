import type { Logger } from '@uncle-rpc/config'
import type { ReplicaState } from '@uncle-rpc/db'
import type { HeadTracker } from '../reads/heads.js'
import type { BreakerState } from '../protection/breaker.js'

export type ReadinessDeps = {
  heads: HeadTracker
  /** Absent: rate limits off. */
  limiter?: { readonly shared: boolean } | undefined
  partners: ReadonlyMap<string, { readonly state: BreakerState }>
  /** Read replicas, when configured (reported, not required: reads fall back to the primary). */
  replicas?: (() => ReplicaState[]) | undefined
  logger: Logger
}

/** What a readiness check found. */
export type ReadinessReport = {
  ready: boolean
  /**
   * What is degraded, by name only: `postgres`, `index` (no network has indexed blocks), `redis`,
   * `partner:<network>`, `replicas` (the last does not make the service unready).
   */
  degraded: string[]
  /** Latest indexed block per network, each check's state, replica names and lag, and why each is degraded (error text included). */
  details: { networks: Record<string, string | null>; checks: Record<string, unknown>; reasons: string[] }
}

/** Runs the readiness checks; answers within the head tracker's deadline. */
export type Readiness = () => Promise<ReadinessReport>

/** `/ready` on the public port: ready or not, and what is degraded, nothing about hosts, lag or errors. */
export function publicReadyBody({ ready, degraded }: ReadinessReport): Record<string, unknown> {
  return { status: ready ? 'ready' : 'not ready', ...(degraded.length > 0 ? { degraded } : {}) }
}

/** `/ready` on the admin port (--metrics-port): everything the checks found. */
export function adminReadyBody({ ready, degraded, details }: ReadinessReport): Record<string, unknown> {
  return { status: ready ? 'ready' : 'not ready', degraded, ...details }
}

/**
 * Readiness: ready only when the service can answer as configured — Postgres readable (within the
 * head tracker's deadline) and at least one network indexed, Redis shared limits in force (when
 * rate limits are on), every failover partner circuit closed. Replicas are reported, not required.
 */
export function createReadiness({ heads, limiter, partners, replicas, logger }: ReadinessDeps): Readiness {
  return async () => {
    const degraded: string[] = []
    const reasons: string[] = []
    let postgres: 'ok' | 'down' = 'ok'
    let networks: Record<string, string | null> = {}
    try {
      const latest = await heads.refresh()
      networks = Object.fromEntries([...latest].map(([name, n]) => [name, n === null ? null : n.toString()]))
      if (![...latest.values()].some((n) => n !== null)) {
        degraded.push('index')
        reasons.push('index: no network has indexed blocks yet')
      }
    } catch (error) {
      logger.warn({ msg: 'readiness check failed', error: (error as Error).message })
      postgres = 'down'
      degraded.push('postgres')
      // Note: drizzle's message is the failed SQL; the driver's error (refused, timed out) is its cause.
      const cause = (error as Error).cause
      reasons.push(`postgres: ${cause instanceof Error ? cause.message : (error as Error).message}`)
    }
    const redis = limiter === undefined ? 'off' : limiter.shared ? 'ok' : 'down'
    if (redis === 'down') {
      degraded.push('redis')
      reasons.push('redis: unreachable; rate limits are per process and daily limits are not enforced')
    }
    const circuits = Object.fromEntries([...partners].map(([network, partner]) => [network, partner.state]))
    for (const [network, state] of Object.entries(circuits))
      if (state !== 'closed') {
        degraded.push(`partner:${network}`)
        reasons.push(`partner:${network}: circuit ${state}; failover forwarding unavailable`)
      }
    const ready = degraded.length === 0
    const replicaStates = replicas?.()
    const unusable = replicaStates?.filter((r) => !r.usable) ?? []
    if (unusable.length > 0) {
      degraded.push('replicas')
      for (const r of unusable) reasons.push(`replicas: ${r.name} skipped (${r.reason ?? 'unknown'}); reads go to the primary`)
    }
    const checks = {
      postgres,
      redis,
      partners: circuits,
      ...(replicaStates === undefined ? {} : { replicas: replicaStates.map(({ name, usable, replicating, lagMs, reason }) => ({ name, usable, replicating, lag_ms: lagMs, reason })) }),
    }
    return { ready, degraded, details: { networks, checks, reasons } }
  }
}
