import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { attachFastPath, defaultRequestsPerTurn, type FastPath } from '@uncle-rpc/wire'
import { createAdmission } from '../admission/admission.js'
import { createFastRpc } from '../transport/fastRpc.js'
import { createHttpHandler, type HttpDeps } from '../transport/http.js'
import type { RpcLimits } from '../transport/limits.js'
import type { RpcServerOptions } from './serverOptions.js'

/** A request head longer than this goes to node:http (its own limit is 16 KiB). */
const fastPathMaxHeadBytes = 8192

/** The node:http server, its request and head timeouts from the limits. */
export function createHttpServer(limits: RpcLimits): Server {
  return createServer({
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: Math.min(60_000, limits.requestTimeoutMs),
    // Note: node checks these timeouts on this period (default 30 s), so it bounds their precision.
    connectionsCheckingInterval: Math.min(1000, limits.requestTimeoutMs),
  })
}

export type RequestRoutes = {
  /** The HTTP fast path beneath node:http; undefined when off. */
  fast: FastPath | undefined
  /**
   * Answers of the Express app not yet sent; while closing each one ends its keep-alive connection
   * (Connection: close). The JSON-RPC answers check `closing` as they are written instead (http.ts).
   */
  unanswered: Set<ServerResponse>
}

/**
 * Routes `server`'s requests: the JSON-RPC POSTs the fast path reads strictly are answered beneath
 * node:http (fastRpc.ts), the others by the plain listener (http.ts), everything else by the
 * Express app. `httpDeps.closing()` turns every answer into the connection's last.
 */
export function routeRequests(
  server: Server,
  httpDeps: HttpDeps & { closing: () => boolean },
  app: (req: IncomingMessage, res: ServerResponse) => void,
  options: Pick<RpcServerOptions, 'fastPath' | 'requestsPerTurn'>,
): RequestRoutes {
  const { answer, limits, logger, closing } = httpDeps
  const rpc = createHttpHandler(httpDeps)
  const fast: FastPath | undefined =
    options.fastPath === false
      ? undefined
      : attachFastPath(server, createFastRpc({ admit: createAdmission(httpDeps), answer, logger, closing }), {
          maxHeadBytes: fastPathMaxHeadBytes,
          maxHeaders: 64,
          maxBodyBytes: limits.maxBodyBytes,
          requestTimeoutMs: limits.requestTimeoutMs,
          // Note: as node:http: it advertises keepAliveTimeout (the answers' `keep-alive: timeout=5`)
          // and closes an idle connection keepAliveTimeoutBuffer later, so a client that reuses one
          // just before the advertised time does not meet a close (ECONNRESET).
          keepAliveTimeoutMs: server.keepAliveTimeout + (Number.isFinite(server.keepAliveTimeoutBuffer) ? server.keepAliveTimeoutBuffer : 1000),
          requestsPerTurn: options.requestsPerTurn ?? defaultRequestsPerTurn,
        })
  const unanswered = new Set<ServerResponse>()
  server.on('request', (req, res) => {
    if (closing()) res.shouldKeepAlive = false
    if (rpc(req, res)) return
    if (!closing()) {
      unanswered.add(res)
      res.once('finish', () => unanswered.delete(res))
      res.once('close', () => unanswered.delete(res))
    }
    app(req, res)
  })
  return { fast, unanswered }
}
