import type { Logger } from '@uncle-rpc/config'
import { errorResponse, InvalidRequestError, NotFoundError } from '@uncle-rpc/jsonrpc'
import express, { type ErrorRequestHandler, type Express } from 'express'
import { failedRequestBody } from '../transport/http.js'
import { type Readiness, publicReadyBody } from './readiness.js'
import { healthPath, notFoundText, readyPath, rpcExpressPaths } from '../transport/routes.js'

const notFoundBody = errorResponse('null', new NotFoundError(notFoundText))
const methodNotAllowedBody = errorResponse('null', new InvalidRequestError('method not allowed: send JSON-RPC requests with POST'))

/**
 * The Express application: health, readiness and JSON 404s (WebSockets are upgraded before it, ws.ts).
 * The JSON-RPC POST endpoints are answered before it (http.ts). No stack traces leave it.
 */
export function createApp({ readiness }: { readiness: Readiness }): Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)

  app.get(healthPath, (_req, res) => {
    res.json({ status: 'ok' })
  })
  // Note: what is degraded by name only; hosts, lag and error text are on the admin port (adminReadyBody, served by serveMetrics).
  app.get(readyPath, async (_req, res) => {
    const report = await readiness()
    res.status(report.ready ? 200 : 503).json(publicReadyBody(report))
  })
  return app
}

/** The handlers that go last: 405 on the RPC paths, JSON 404, JSON 500 without internals. */
export function finishApp(app: Express, logger: Logger): void {
  app.all(rpcExpressPaths, (_req, res) => {
    res.status(405).set('allow', 'POST').type('application/json').send(methodNotAllowedBody)
  })
  app.use((_req, res) => {
    res.status(404).type('application/json').send(notFoundBody)
  })
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    const status = typeof error?.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 500
    res.status(status).type('application/json').send(failedRequestBody(logger, error))
  }
  app.use(onError)
}
