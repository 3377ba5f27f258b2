import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createJsonRpcHandler, type JsonRpcMethods, parseMessage, ServerError } from '@uncle-rpc/jsonrpc'
import { listen, sleep } from '@uncle-rpc/process'
import type { FaultDecision, Faults } from './faults.js'

// The HTTP transport, shaped like geth's rpc/http.go: POST with a JSON content type, 5 MiB body
// limit, status 200 for every JSON-RPC answer, and a trailing "\n" after each body.

export type SampleNodeServerParameters = {
  methods: JsonRpcMethods<unknown>
  /** Largest batch (default 1000, geth's --rpc.batch-request-limit). */
  maxBatchSize?: number | undefined
  faults?: Faults | undefined
  /** Called for unexpected errors thrown by methods (the client sees -32603 with this id). */
  onInternalError?: ((error: unknown, correlationId: string) => void) | undefined
}

export type SampleNodeServer = {
  server: Server
  listen(port: number, host: string): Promise<AddressInfo>
  close(): Promise<void>
}

/** geth's maximum request body (rpc/http.go defaultBodyLimit). */
const bodyLimit = 5 * 1024 * 1024
const acceptedContentTypes = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest'])

type RequestContext = { injectError: boolean }

function withFaultErrors(methods: JsonRpcMethods<unknown>): JsonRpcMethods<unknown> {
  const wrapped: Record<string, (params: unknown, context: unknown) => unknown> = {}
  for (const [name, method] of Object.entries(methods)) {
    wrapped[name] = (params, context) => {
      if ((context as RequestContext).injectError) throw new ServerError('injected fault: internal server error')
      return method(params, context)
    }
  }
  return wrapped
}

function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers })
  res.end(text)
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > bodyLimit) {
        resolve(undefined)
        req.destroy()
      } else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}


/** Builds the sample node's HTTP server (not yet listening). */
export function createSampleNodeServer(parameters: SampleNodeServerParameters): SampleNodeServer {
  const maxBatchSize = parameters.maxBatchSize ?? 1000
  const handler = createJsonRpcHandler<unknown>({
    methods: parameters.faults ? withFaultErrors(parameters.methods) : parameters.methods,
    maxBatchSize,
    geth: true,
    onInternalError: (error, correlationId) => parameters.onInternalError?.(error, correlationId),
  })

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && Number(req.headers['content-length'] ?? 0) === 0 && !req.url?.includes('?')) {
      // geth answers an empty GET with 200 (used as a health check).
      res.writeHead(200, { 'content-length': 0 })
      res.end()
      return
    }
    if (req.method !== 'POST') return sendText(res, 405, 'method not allowed\n')
    const declared = Number(req.headers['content-length'] ?? 0)
    if (declared > bodyLimit) return sendText(res, 413, `content length too large (${declared}>${bodyLimit})\n`)
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
    if (!acceptedContentTypes.has(mediaType))
      return sendText(res, 415, 'invalid content type, only application/json is supported\n')

    const decision: FaultDecision = parameters.faults?.decide() ?? { kind: 'none', delayMs: 0 }
    if (decision.kind === 'rateLimited')
      return sendText(res, 429, 'Too Many Requests\n', { 'retry-after': String(decision.retryAfterSeconds) })
    const text = await readBody(req)
    if (text === undefined) return sendText(res, 413, `content length too large (>${bodyLimit})\n`)
    if (decision.delayMs > 0) await sleep(decision.delayMs)
    if (decision.kind === 'httpError') {
      const reason = { 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' }[decision.status]
      return sendText(res, decision.status, `injected fault: ${reason}\n`)
    }
    if (decision.kind === 'drop' && !decision.afterHeaders) {
      req.socket.destroy()
      return
    }

    const message = parseMessage(text)
    const context: RequestContext = { injectError: decision.kind === 'rpcError' }
    const body = await handler.handleMessage(message, context)
    // Note: geth ≤ v1.17.3 ends every answer with "\n" (json.Encoder), except errors it sends with
    // isError=true, such as "batch too large", which are json.Marshal'ed (v1.11+).
    const batchTooLarge = message.kind === 'batch' && message.entries.length > maxBatchSize
    const payload = body === undefined ? '' : batchTooLarge ? body : `${body}\n`
    const length = Buffer.byteLength(payload)
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': length })
    if (decision.kind === 'drop') {
      // Headers and part of the body, then the connection goes away.
      res.write(payload.slice(0, Math.floor(payload.length / 2)))
      setImmediate(() => req.socket.destroy())
      return
    }
    res.end(payload)
  }

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      parameters.onInternalError?.(error, 'http')
      if (!res.headersSent) sendText(res, 500, 'internal server error\n')
      else res.destroy()
    })
  })

  return {
    server,
    listen: (port, host) => listen(server, { port, host }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
