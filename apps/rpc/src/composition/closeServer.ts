import type { Server, ServerResponse } from 'node:http'
import { Server as NetServer } from 'node:net'
import type { FastPath } from '@uncle-rpc/wire'
import type { Auth } from '../access/auth.js'
import type { RateLimiter } from '../access/rateLimit.js'
import type { UsageRecorder } from '../access/usage.js'
import type { ReorgWatch } from '../reads/byNumberCache.js'
import type { HeadTracker } from '../reads/heads.js'
import type { UncleFilter } from '../reads/uncleFilter.js'

/** What a closing rpc server stops, in the order it stops them. */
export type ClosingParts = {
  heads: HeadTracker
  reorgWatch: ReorgWatch
  lag: { stop(): void }
  /** Set here: from then on every answer ends its connection. */
  shutdown: { closing: boolean }
  unanswered: ReadonlySet<ServerResponse>
  ws: { close(): Promise<void> }
  server: Server
  fast: FastPath | undefined
  auth: Auth
  uncleFilter: UncleFilter | undefined
  usage: UsageRecorder
  limiter: RateLimiter | undefined
}

/**
 * Stops accepting, closes WebSockets, answers requests in flight with Connection: close, closes
 * idle keep-alive connections after 500 ms (busy ones are cut after 5 s), flushes key usage,
 * closes Redis (RpcServer.close).
 */
export async function closeRpcServer(parts: ClosingParts): Promise<void> {
  const { server, fast } = parts
  parts.heads.stop()
  parts.reorgWatch.stop()
  parts.lag.stop()
  parts.shutdown.closing = true
  for (const res of parts.unanswered) if (!res.headersSent) res.shouldKeepAlive = false
  await parts.ws.close()
  await new Promise<void>((resolve) => {
    // Note: net's close, not http's: http's closes idle keep-alive connections at once, racing
    // clients that are sending their next request on them. Here a request arriving in the first
    // 500 ms is answered with Connection: close; connections still idle then are closed.
    NetServer.prototype.close.call(server, () => resolve())
    const idle = setTimeout(() => {
      server.closeIdleConnections()
      fast?.closeIdleConnections()
    }, 500)
    // Requests still running get 5 s to finish; then their connections are cut.
    const cut = setTimeout(() => {
      server.closeAllConnections()
      fast?.closeAllConnections()
    }, 5000)
    idle.unref()
    cut.unref()
  })
  // Note: http's close as well, for its timeout timer (the listening socket is closed already).
  server.close(() => undefined)
  fast?.stop()
  await parts.auth.stop()
  await parts.uncleFilter?.stop()
  await parts.usage.stop()
  await parts.limiter?.close()
}
