import { type Connection, empty, type FastPathState } from './connection.js'
import type { HeadCheck } from './fastPathDeps.js'
import { finish, giveToNode } from './handOff.js'
import { rememberHead, repeatedHead } from './headMemo.js'
import { type FastRequest, handOff, incomplete, parseRequest } from './parseRequest.js'
import { refuse } from './refuse.js'
import { schedule } from './turnBudget.js'

// Reading a connection's requests: whole ones are scheduled for an answer; a head whose body is
// still to come is checked first and its body kept only once it passed; the first request the
// parser does not take hands the connection to node:http.

/** The socket's 'data': the bytes join the body being kept, or the buffer, which is read. */
export function received<Pass>(s: FastPathState<Pass>, c: Connection<Pass>, chunk: Buffer): void {
  if (c.stopped) return
  s.clock = Date.now()
  c.idleSince = 0
  if (c.body !== undefined) {
    keep(c, chunk)
    if (!c.checking && c.have >= c.body.end) bodyArrived(s, c)
    return
  }
  c.buffer = c.buffer.length === 0 ? chunk : Buffer.concat([c.buffer, chunk])
  read(s, c)
}

/** Takes the whole requests at the start of c.buffer, until one is incomplete, awaits its body, or is not ours. */
function read<Pass>(s: FastPathState<Pass>, c: Connection<Pass>): void {
  const { options } = s
  while (!c.stopped && c.buffer.length > 0) {
    let verdict: FastRequest | typeof incomplete | typeof handOff | undefined = c.memo === undefined ? undefined : repeatedHead(c.memo, c.buffer, options)
    if (verdict === undefined) {
      verdict = parseRequest(c.buffer, options)
      if (typeof verdict === 'object') c.memo = rememberHead(c.buffer, verdict)
    }
    if (verdict === incomplete) break
    if (verdict === handOff) {
      c.stopped = true
      if (c.slots.length === 0) giveToNode(s, c)
      else {
        c.handOffPending = true
        c.socket.pause()
      }
      return
    }
    if (c.buffer.length < verdict.end) {
      if (c.startedAt === 0) c.startedAt = s.clock
      return awaitBody(s, c, verdict)
    }
    take(s, c, verdict, undefined)
  }
  if (c.buffer.length > 0 && c.startedAt === 0) c.startedAt = s.clock
}

/** The request at the start of c.buffer is all there: it is answered (in order) and its bytes leave the buffer. */
function take<Pass>(s: FastPathState<Pass>, c: Connection<Pass>, request: FastRequest, pass: Pass | undefined): void {
  const body = c.buffer.subarray(request.bodyStart, request.end)
  c.buffer = c.buffer.subarray(request.end)
  c.startedAt = c.buffer.length > 0 ? s.clock : 0
  // Note: after `Connection: close` nothing more is read; the connection ends with its answer.
  if (!request.keepAlive) c.stopped = true
  schedule(s, c, request, body, pass)
}

/** A head whose body is still to come: checked now, and its bytes kept (in one buffer that doubles) only once it passed. */
function awaitBody<Pass>(s: FastPathState<Pass>, c: Connection<Pass>, request: FastRequest): void {
  const { deps } = s
  c.body = request
  c.kept = c.buffer
  c.have = c.buffer.length
  c.buffer = empty
  let checked: HeadCheck<Pass> | Promise<HeadCheck<Pass>>
  try {
    checked = deps.check(request)
  } catch (error) {
    checked = { ok: false, refusal: deps.failed(error) }
  }
  if (!(checked instanceof Promise)) return headChecked(s, c, checked)
  c.checking = true
  c.socket.pause()
  checked.then(
    (verdict) => headChecked(s, c, verdict),
    (error: unknown) => headChecked(s, c, { ok: false, refusal: deps.failed(error) }),
  )
}

/** The verdict on a head awaiting its body: refused now, or the body (kept meanwhile) is read on. */
function headChecked<Pass>(s: FastPathState<Pass>, c: Connection<Pass>, verdict: HeadCheck<Pass>): void {
  const { socket } = c
  const waited = c.checking
  c.checking = false
  if (!s.open.has(c) || socket.destroyed) return
  s.clock = Date.now()
  if (!verdict.ok) return refuse(s, c, verdict.refusal)
  c.pass = verdict.pass
  if (waited && !c.handOffPending && !socket.writableNeedDrain) socket.resume()
  if (c.have >= (c.body as FastRequest).end) bodyArrived(s, c)
  else if (c.ended && c.slots.length === 0) finish(s, c)
}

/** Adds `chunk` to the body being kept, doubling its buffer up to the declared length when it is full. */
function keep<Pass>(c: Connection<Pass>, chunk: Buffer): void {
  const need = c.have + chunk.length
  if (need > c.kept.length) {
    const grown = Buffer.allocUnsafe(Math.max(need, Math.min(2 * c.kept.length, (c.body as FastRequest).end)))
    grown.set(c.kept.subarray(0, c.have), 0)
    c.kept = grown
  }
  c.kept.set(chunk, c.have)
  c.have = need
}

/** The body awaited is all there (its head passed): the request is answered and what follows it is read. */
function bodyArrived<Pass>(s: FastPathState<Pass>, c: Connection<Pass>): void {
  const request = c.body as FastRequest
  const bytes = c.kept.subarray(0, c.have)
  const pass = c.pass
  c.body = undefined
  c.pass = undefined
  c.kept = empty
  c.buffer = bytes
  take(s, c, request, pass)
  read(s, c)
}
