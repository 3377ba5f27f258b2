import { Socket } from 'node:net'

// Socket reads into one buffer shared by every socket, the way net's `onread` option reads a
// socket it connects (node offers the option to those only; here it is given to the sockets a
// server accepts). By default node makes a 64 KB ArrayBuffer for each read, shrinks it to the
// bytes read and pushes it through the socket's Readable to its 'data' listeners; with 300-byte
// requests that was 8-9% of the server's time (perf: the backing store's malloc and free, V8's
// ArrayBuffer sweeper, the Readable's push). Here a read's bytes are copied out of the shared
// buffer at once into memory of their own (Buffer's pool for small reads), so no one ever holds
// the shared buffer, and handed to a callback.

/** net.Socket's own fields for `onread` (found on a socket made with the option). */
const onreadFields = (() => {
  const probe = new Socket({ onread: { buffer: Buffer.alloc(1), callback: () => true } })
  const symbols = Object.getOwnPropertySymbols(probe)
  const field = (name: string) => symbols.find((s) => s.description === name)
  const buffer = field('kBuffer')
  const callback = field('kBufferCb')
  const generator = field('kBufferGen')
  probe.destroy()
  const found = buffer !== undefined && callback !== undefined && generator !== undefined
  return found && (probe as unknown as Record<symbol, unknown>)[generator] === null ? { buffer, callback, generator } : undefined
})()

/** Whether this node reads sockets into the shared buffer (else they read as node does by default). */
export const sharedReadsSupported = onreadFields !== undefined

// Note: node's own read size; a longer read is read in parts.
const shared = Buffer.allocUnsafeSlow(64 * 1024)

type Handle = { useUserBuffer?: (buffer: Uint8Array) => void }
type OnreadSocket = Socket & Record<symbol, unknown> & { _handle: Handle | null }

/** The bytes of one read, in memory of their own. */
function copyOut(nread: number): Buffer {
  const chunk = Buffer.allocUnsafe(nread)
  shared.copy(chunk, 0, 0, nread)
  return chunk
}

/**
 * Reads `socket` into the shared buffer from now on, each read's bytes given to `onBytes` (not to
 * 'data' listeners: bytes its Readable holds already still go there). Pause and resume stop and
 * start the reads; the end of the stream, errors and timeouts work as before. Returns false, and
 * changes nothing, where this node or this socket does not allow it.
 */
export function readShared(socket: Socket, onBytes: (chunk: Buffer) => void): boolean {
  const s = socket as OnreadSocket
  const fields = onreadFields
  if (fields === undefined) return false
  const reading = s[fields.buffer]
  if (reading !== shared && (reading !== null || typeof s._handle?.useUserBuffer !== 'function')) return false
  s[fields.callback] = (nread: number) => {
    onBytes(copyOut(nread))
    return true
  }
  if (reading === shared) return true
  s[fields.buffer] = shared
  s[fields.generator] = null
  s._handle!.useUserBuffer!(shared)
  return true
}

/**
 * A socket read by readShared drops its reads from now on: `onDropped` gets each read's length,
 * and nothing is copied. Returns false where the socket is not read by readShared.
 */
export function dropShared(socket: Socket, onDropped: (nread: number) => void): boolean {
  const s = socket as OnreadSocket
  const fields = onreadFields
  if (fields === undefined || s[fields.buffer] !== shared) return false
  s[fields.callback] = (nread: number) => {
    onDropped(nread)
    return true
  }
  return true
}

/**
 * A socket read by readShared goes back to node's own delivery: each read's bytes are pushed
 * through its Readable ('data', pause and backpressure as node gives them), still read into the
 * shared buffer. For a socket handed to node:http or ws.
 */
export function pushReads(socket: Socket): void {
  const s = socket as OnreadSocket
  const fields = onreadFields
  if (fields === undefined || s[fields.buffer] !== shared) return
  // Note: push's false (the Readable is full) stops the reads until it is read, as node's own reads do.
  s[fields.callback] = (nread: number) => socket.push(copyOut(nread))
}
