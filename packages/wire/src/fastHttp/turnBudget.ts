import { answer } from './answers.js'
import type { Connection, FastPathState, Slot } from './connection.js'
import type { FastRequest } from './parseRequest.js'

// The per-turn request budget (FastPathOptions.requestsPerTurn): while connections are arriving,
// at most `bound` requests are answered per event-loop turn and the rest wait, in arrival order,
// for the next turns, so node keeps accepting connections under a burst.

/** Answers now while the turn's budget lasts and nobody waits; else takes the request's slot and queues it. */
export function schedule<Pass>(s: FastPathState<Pass>, c: Connection<Pass>, request: FastRequest, body: Buffer, pass: Pass | undefined): void {
  if (!s.turnEnds) {
    s.turnEnds = true
    setImmediate(s.endTurn)
  }
  if (s.spent < s.budget && s.waiting.length === 0) return answer(s, c, request, body, pass)
  const slot: Slot = { bytes: undefined, close: !request.keepAlive }
  c.slots.push(slot)
  s.waiting.push({ c, request, body, pass, slot })
}

/** A new turn (setImmediate's check phase): the budget is whole again and the requests waiting are answered from it. */
export function endTurn<Pass>(s: FastPathState<Pass>): void {
  s.clock = Date.now()
  s.turnEnds = false
  s.spent = 0
  const { waiting } = s
  let next = waiting.shift()
  while (next !== undefined) {
    if (!next.c.socket.destroyed) answer(s, next.c, next.request, next.body, next.pass, next.slot)
    if (waiting.length === 0) break
    if (s.spent >= s.budget) break
    next = waiting.shift()
  }
  if (waiting.length > 0 && !s.turnEnds) {
    s.turnEnds = true
    setImmediate(s.endTurn)
  }
}

/** A connection arrived: the bound holds until two sweeps pass with none. */
export function connectionArrived<Pass>(s: FastPathState<Pass>): void {
  s.arrived = true
  s.budget = s.bound
}

/** The once-a-second sweep: no connection arrived since the last one, so no bound. */
export function budgetSwept<Pass>(s: FastPathState<Pass>): void {
  if (!s.arrived) s.budget = Number.POSITIVE_INFINITY
  s.arrived = false
}
