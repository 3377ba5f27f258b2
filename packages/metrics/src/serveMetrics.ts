import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { MetricsSource } from './registry.js'

export type MetricsServer = {
  /** `http://host:port/metrics` as bound (port 0 resolved). */
  url: string
  close(): Promise<void>
}

export type ServeMetricsDeps = {
  source: MetricsSource
  /** Told when collecting fails (the scrape gets a 500). */
  onError: (error: unknown) => void
}

/**
 * `GET /metrics` (Prometheus text format) on its own port, apart from the service's own, so it
 * can stay on loopback or a private interface. Anything else is a 404.
 */
export async function serveMetrics(deps: ServeMetricsDeps, { port, host }: { port: number; host: string }): Promise<MetricsServer> {
  const { source, onError } = deps
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n')
      return
    }
    source.metrics().then(
      (text) => res.writeHead(200, { 'content-type': source.contentType }).end(text),
      (error: unknown) => {
        onError(error)
        res.writeHead(500, { 'content-type': 'text/plain' }).end('collecting metrics failed\n')
      },
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shown}:${address.port}/metrics`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
