import type { Connection, FastPathState, Slot } from './connection.js'
import type { FastRequest } from './parseRequest.js'
import type { FastAnswer } from './fastPathDeps.js'
import { finish, giveToNode } from './handOff.js'
import { responseBytes, written } from './responseBytes.js'

// A connection's answers, written in request order (pipelining) as soon as the ones before them are.

/** Serves one request (in the slot `taken` for it, else a new one at the end) and writes its answer once ready. */
export function answer<Pass>(s: FastPathState<Pass>, c: Connection<Pass>, request: FastRequest, body: Buffer, pass: Pass | undefined, taken?: Slot): void {
  let slot = taken
  if (slot === undefined) {
    slot = { bytes: undefined, close: !request.keepAlive }
    c.slots.push(slot)
  }
  const ready = slot
  s.answered++
  let result: FastAnswer | Promise<FastAnswer>
  try {
    result = s.deps.serve(request, body, pass)
  } catch (error) {
    result = { ...s.deps.failed(error), close: true }
  }
  // Note: only answers written now count against the turn's bound: a request that waits for the
  // database cost its parse here, and the misses of one turn share a statement (cache off,
  // counting them too held each statement to 8 lookups: 9,800 against 14,000 req/s).
  if (!(result instanceof Promise)) s.spent++
  // Note: closures only when the answer has to wait; a cached answer is written in this call.
  if (result instanceof Promise)
    result.then(
      (a) => {
        s.clock = Date.now()
        complete(s, c, ready, a)
      },
      (error: unknown) => {
        s.clock = Date.now()
        complete(s, c, ready, { ...s.deps.failed(error), close: true })
      },
    )
  else complete(s, c, ready, result)
}

/** The answer of `slot` is ready: its bytes are made, and written if no answer before it is still to come. */
export function complete<Pass>(s: FastPathState<Pass>, c: Connection<Pass>, slot: Slot, a: FastAnswer): void {
  // Note: the connection went while this answer was made: nothing to write.
  if (c.socket.destroyed) return
  const close = slot.close || a.close === true || s.deps.closing()
  slot.close = close
  slot.bytes = responseBytes(a, !close, s.clock, c.socket.writableLength > 0)
  if (c.slots[0] === slot) flush(s, c)
}

/** Writes the answers ready at the head of the order; once none is left, a pending handoff or FIN is carried out. */
function flush<Pass>(s: FastPathState<Pass>, c: Connection<Pass>): void {
  const { slots, socket } = c
  while (slots.length > 0 && slots[0]!.bytes !== undefined) {
    const slot = slots.shift() as Slot
    // Note: a client that sends and never reads: stop reading it until its answers drain.
    const bytes = slot.bytes as Buffer
    if (!socket.destroyed && !socket.write(bytes)) socket.pause()
    written(bytes, socket)
    if (slot.close) {
      c.stopped = true
      socket.end()
      s.open.delete(c)
      return
    }
  }
  if (slots.length === 0) {
    if (c.handOffPending) return giveToNode(s, c)
    if (c.ended) return finish(s, c)
    if (c.buffer.length === 0 && c.body === undefined) c.idleSince = s.clock
  }
}
