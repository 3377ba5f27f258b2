import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client'

/** What a metrics endpoint serves: Prometheus text and its content type. */
export type MetricsSource = {
  readonly contentType: string
  metrics(): Promise<string>
}

/**
 * A registry of one process with the default process and Node.js metrics (CPU, memory, event
 * loop lag, GC). Each app registers its own families on it; nothing is global.
 */
export function createRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  return registry
}

/** In a node:cluster worker: answers the primary's requests with this registry's metrics (see aggregateWorkers). */
export function exposeToPrimary(registry: Registry): void {
  // Note: the constructor installs prom-client's IPC listener; setRegistries names what it reports.
  new AggregatorRegistry()
  AggregatorRegistry.setRegistries([registry])
}

/**
 * In a node:cluster primary: each scrape asks every worker for its metrics over IPC and serves
 * their aggregate (counters and histograms summed; gauges by their `aggregator`, sum by default).
 */
export function aggregateWorkers(): MetricsSource {
  const aggregator = new AggregatorRegistry()
  return { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() }
}
