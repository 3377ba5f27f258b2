import { createServer, type ServerResponse } from 'node:http'
import { listen } from '@uncle-rpc/process'
import type { MetricsSource } from './registry.js'

export type MetricsServer = {
  /** `http://host:port/metrics` as bound (port 0 resolved). */
  url: string
  close(): Promise<void>
}

/** A readiness answer for the admin port: the HTTP status and a JSON body. */
export type AdminReady = () => Promise<{ ready: boolean; body: unknown }>

export type ServeMetricsDeps = {
  source: MetricsSource
  /** Told when collecting fails (the scrape gets a 500). */
  onError: (error: unknown) => void
  /** Answers GET /ready (200 when ready, else 503); absent: /ready is a 404. */
  ready?: AdminReady | undefined
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body))

/**
 * The admin port: `GET /metrics` (Prometheus text format), `GET /health` (the process is up) and,
 * when given, `GET /ready` (full detail), on a server of its own, apart from the service's port,
 * so probes and scrapes never queue behind client traffic and it can stay on loopback or a private
 * interface. Anything else is a 404.
 */
export async function serveMetrics(deps: ServeMetricsDeps, { port, host }: { port: number; host: string }): Promise<MetricsServer> {
  const { source, onError, ready } = deps
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if (req.method === 'GET' && path === '/health') return json(res, 200, { status: 'ok' })
    if (req.method === 'GET' && path === '/ready' && ready !== undefined) {
      ready().then(
        (answer) => json(res, answer.ready ? 200 : 503, answer.body),
        (error: unknown) => {
          onError(error)
          json(res, 503, { status: 'not ready', error: (error as Error).message })
        },
      )
      return
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: GET /metrics, /health${ready ? ', /ready' : ''}\n`)
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
  const address = await listen(server, { port, host })
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
