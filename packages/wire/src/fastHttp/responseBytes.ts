import type { Socket } from 'node:net'
import { answerBytes } from '../answerBytes.js'
import type { FastAnswer } from './fastPathDeps.js'
import { bodyLength, writeBody } from '../lazyBody.js'

// The bytes of the fast path's responses: a head made once where it can be, and head and body
// written into one reused buffer.

const reasons: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

/** node:http's own 408 (what a client of either path gets when its request is too slow). */
export const timedOut = Buffer.from('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n', 'latin1')

// The heads' ends after the Content-Length value, with the Date header (RFC 9110: an origin server
// with a clock sends it), made once a second as bytes.
let tailsAt = 0
let keepAliveTail = Buffer.alloc(0)
let closeTail = Buffer.alloc(0)

function headTail(keepAlive: boolean, now: number): Buffer {
  if (now - tailsAt >= 1000 || tailsAt === 0) {
    tailsAt = now - (now % 1000)
    const date = new Date(tailsAt).toUTCString()
    keepAliveTail = Buffer.from(`\r\ndate: ${date}\r\nconnection: keep-alive\r\nkeep-alive: timeout=5\r\n\r\n`, 'latin1')
    closeTail = Buffer.from(`\r\ndate: ${date}\r\nconnection: close\r\n\r\n`, 'latin1')
  }
  return keepAlive ? keepAliveTail : closeTail
}

// One response buffer used again and again while each write of it completes at once (the kernel
// took every byte: node keeps no reference then); a write left pending keeps it, and the next
// response gets a new one. Note: fresh memory for every response (Buffer's pool, or slabs) cost
// page faults; 64 KB covers every cached answer, a larger response is cut from the slabs.
let scratch = Buffer.allocUnsafeSlow(64 * 1024)
let scratchTaken = false

function responseBuffer(length: number, backlogged: boolean): Buffer {
  // Note: a response that waits behind writes the kernel has not taken is cut from the slabs, so a
  // client that does not read holds what it was sent, not a 64 KB scratch buffer per response.
  if (scratchTaken || backlogged || length > scratch.length) return answerBytes(length)
  scratchTaken = true
  return scratch.subarray(0, length)
}

/** After `bytes` went to `socket.write` (or were dropped): the scratch buffer is free again, or stays with the pending write. */
export function written(bytes: Buffer, socket: Socket): void {
  if (bytes.buffer !== scratch.buffer) return
  if (socket.writableLength > 0) scratch = Buffer.allocUnsafeSlow(scratch.length)
  scratchTaken = false
}

const okHead = Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ', 'latin1')

/** A head up to the Content-Length value: the common one made once, any other per answer. */
function headStart(status: number, extra: readonly string[] | undefined): Buffer {
  if (status === 200 && (extra === undefined || extra.length === 0)) return okHead
  let head = `HTTP/1.1 ${status} ${reasons[status] ?? 'OK'}\r\ncontent-type: application/json\r\n`
  if (extra !== undefined) for (let i = 0; i + 1 < extra.length; i += 2) head += `${extra[i]}: ${extra[i + 1]}\r\n`
  return Buffer.from(`${head}content-length: `, 'latin1')
}

/**
 * One response's bytes: head and body in one buffer, so one write and one packet; a text body is
 * encoded straight into it, a lazy body written straight into it. `backlogged`: the socket has writes the kernel has not taken yet.
 * Give them back with `written` once they went to the socket.
 */
export function responseBytes(answer: FastAnswer, keepAlive: boolean, now: number, backlogged: boolean): Buffer {
  const head = headStart(answer.status, answer.headers)
  const tail = headTail(keepAlive, now)
  const { body } = answer
  const count = bodyLength(body)
  const length = String(count)
  const bytes = responseBuffer(head.length + length.length + tail.length + count, backlogged)
  bytes.set(head, 0)
  let at = head.length + bytes.write(length, head.length, 'latin1')
  bytes.set(tail, at)
  at += tail.length
  writeBody(bytes, at, body, count)
  return bytes
}
