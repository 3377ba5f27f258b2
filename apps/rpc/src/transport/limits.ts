import type { IncomingMessage } from 'node:http'
import { ClientAbortedError } from '../errors.js'
import { errorResponse, type JsonRpcError } from '@uncle-rpc/jsonrpc'

/** Limits that keep one client from hurting the others. Every one is a `uncle-rpc rpc` flag. */
export type RpcLimits = Readonly<{
  /** Largest HTTP request body, in bytes (413 above it). */
  maxBodyBytes: number
  /** Most entries in a batch (a single `-32600 batch too large` above it). */
  maxBatchSize: number
  /** Largest WebSocket message, in bytes (the connection is closed with 1009 above it). */
  maxWsMessageBytes: number
  /** A WebSocket with no message from the client for this long is closed (1000, "idle timeout"). */
  wsIdleTimeoutMs: number
  /** Ping period; a WebSocket that has not answered the previous ping by the next one is dropped. */
  wsPingIntervalMs: number
  /** Most open WebSocket connections per API key (the upgrade is refused with 429 above it). */
  maxWsConnectionsPerKey: number
  /** Whole HTTP request (headers and body) must arrive within this (408 after it). */
  requestTimeoutMs: number
  /** Messages of one WebSocket being answered at once; past it the server stops reading that socket. */
  wsMaxInFlight: number
  /** Answer bytes queued for one WebSocket (not yet taken by the client); past it the server stops reading that socket. */
  wsMaxQueuedBytes: number
  /** A WebSocket not read for this long because of the two bounds above is closed (1013, try again later). */
  wsStalledCloseMs: number
}>

export const defaultLimits: RpcLimits = Object.freeze({
  maxBodyBytes: 5 * 1024 * 1024,
  maxBatchSize: 1000,
  maxWsMessageBytes: 5 * 1024 * 1024,
  wsIdleTimeoutMs: 300_000,
  wsPingIntervalMs: 30_000,
  maxWsConnectionsPerKey: 100,
  requestTimeoutMs: 30_000,
  wsMaxInFlight: 16,
  wsMaxQueuedBytes: 8 * 1024 * 1024,
  wsStalledCloseMs: 10_000,
})

/** A JSON-RPC error body with id null, for failures found before the request is parsed. */
export function transportErrorBody(error: JsonRpcError): string {
  return errorResponse('null', error)
}

/** Whether a Content-Type header is JSON: `application/json`, optionally with parameters (`; charset=utf-8`). */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false
  if (header === 'application/json') return true
  const semicolon = header.indexOf(';')
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase()
  return type === 'application/json'
}

/** The body, or 'tooLarge' once more than `maxBytes` arrived (the rest is then discarded as it comes). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string | 'tooLarge'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let length = 0
    let tooLarge = false
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return
      length += chunk.length
      if (length > maxBytes) {
        tooLarge = true
        chunks.length = 0
        resolve('tooLarge')
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      if (tooLarge) return
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, length).toString('utf8'))
    })
    req.on('error', reject)
    // Note: a client that disconnects mid-body: nothing to answer (the caller sees req.destroyed).
    req.on('close', () => {
      if (!req.complete) reject(new ClientAbortedError())
    })
  })
}

/** How much of a refused body is read and thrown away so the client gets to read the 413 (nginx's lingering close). */
export type DiscardBound = { maxBytes: number; maxMs: number }

/**
 * Reads and discards the rest of a request body: true once it ended, false when `maxBytes` more
 * arrived or `maxMs` passed first (the caller then answers and closes anyway). Closing a socket
 * the client is still writing to resets it, and clients that send the whole body before reading
 * (fetch, Python http.client) would see EPIPE instead of the answer.
 */
export function discardBody(req: IncomingMessage, { maxBytes, maxMs }: DiscardBound): Promise<boolean> {
  if (req.complete || req.destroyed) return Promise.resolve(req.complete)
  return new Promise((resolve) => {
    let seen = 0
    const done = (ended: boolean) => {
      clearTimeout(timer)
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('close', onClose)
      resolve(ended)
    }
    const onData = (chunk: Buffer) => {
      seen += chunk.length
      if (seen > maxBytes) done(false)
    }
    const onEnd = () => done(true)
    const onClose = () => done(req.complete)
    const timer = setTimeout(() => done(false), maxMs)
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('close', onClose)
    req.resume()
  })
}
