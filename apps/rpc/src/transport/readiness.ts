import type { Logger } from '@uncle-rpc/config'
import type { ReplicaState } from '@uncle-rpc/db'
import type { Readiness } from './app.js'
import type { HeadTracker } from '../methods/heads.js'
import type { BreakerState } from '../failover/breaker.js'

export type ReadinessDeps = {
  heads: HeadTracker
  /** Absent: rate limits off. */
  limiter?: { readonly shared: boolean } | undefined
  partners: ReadonlyMap<string, { readonly state: BreakerState }>
  /** Read replicas, when configured (reported, not required: reads fall back to the primary). */
  replicas?: (() => ReplicaState[]) | undefined
  logger: Logger
}

/**
 * `/ready`: 200 only when the service can answer as configured — Postgres readable and at least
 * one network indexed, Redis shared limits in force (when rate limits are on), every failover
 * partner circuit closed. The body lists each check and, when not ready, what is degraded.
 */
export function createReadiness({ heads, limiter, partners, replicas, logger }: ReadinessDeps): Readiness {
  return async () => {
    const degraded: string[] = []
    let postgres: 'ok' | 'down' = 'ok'
    let networks: Record<string, string | null> = {}
    try {
      const latest = await heads.refresh()
      networks = Object.fromEntries([...latest].map(([name, n]) => [name, n === null ? null : n.toString()]))
      if (![...latest.values()].some((n) => n !== null)) degraded.push('no network has indexed blocks yet')
    } catch (error) {
      logger.warn({ msg: 'readiness check failed', error: (error as Error).message })
      postgres = 'down'
      degraded.push('postgres: database unreachable')
    }
    const redis = limiter === undefined ? 'off' : limiter.shared ? 'ok' : 'down'
    if (redis === 'down') degraded.push('redis: unreachable; rate limits are per process and daily limits are not enforced')
    const circuits = Object.fromEntries([...partners].map(([network, partner]) => [network, partner.state]))
    for (const [network, state] of Object.entries(circuits))
      if (state !== 'closed') degraded.push(`partner of ${network}: circuit ${state}; failover forwarding unavailable`)
    const checks = {
      postgres,
      redis,
      partners: circuits,
      ...(replicas === undefined ? {} : { replicas: replicas().map(({ name, usable, lagMs, reason }) => ({ name, usable, lag_ms: lagMs, reason })) }),
    }
    const ready = degraded.length === 0
    return { ready, networks, checks, ...(ready ? {} : { degraded }) }
  }
}
