import type { IncomingMessage } from 'node:http'
import { ClientAbortedError } from './errors.js'

// A request body read by node:http's IncomingMessage within a limit, or read and dropped so a
// refused client still gets its answer; and whether a Content-Type is JSON. Bytes only: what the
// body means is the caller's.

/** Whether a Content-Type header is JSON: `application/json`, optionally with parameters (`; charset=utf-8`). */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false
  if (header === 'application/json') return true
  const semicolon = header.indexOf(';')
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase()
  return type === 'application/json'
}

/** A request body as read: its text, or too large (more than the limit arrived). */
export type BodyRead = { readonly kind: 'body'; readonly text: string } | { readonly kind: 'tooLarge' }

const tooLargeRead: BodyRead = Object.freeze({ kind: 'tooLarge' })

/** The body, or `tooLarge` once more than `maxBytes` arrived (the rest is then discarded as it comes). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
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
        resolve(tooLargeRead)
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      if (tooLarge) return
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, length).toString('utf8')
      resolve({ kind: 'body', text })
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
