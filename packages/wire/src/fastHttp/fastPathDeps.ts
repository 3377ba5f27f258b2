import type { FastRequest, ParseLimits } from './parseRequest.js'
import type { Body } from '../lazyBody.js'

// What the fast path asks of its caller (the checks and the answers, all of what a body means)
// and how it is bounded.

/** What the fast path sends: status, JSON body, and the extra headers as name/value pairs. */
export type FastAnswer = { status: number; body: Body; headers?: readonly string[] | undefined; close?: boolean | undefined }

/** The checks of a head whose body is still to come: a pass (given back to serve) or the refusal to send. */
export type HeadCheck<Pass> = { ok: true; pass: Pass } | { ok: false; refusal: FastAnswer }

export type FastPathDeps<Pass = unknown> = {
  /**
   * The checks before the body (network, key, restrictions…), run at the head when the body has not
   * all arrived with it, so a refused body is never kept; may throw or reject (500, close).
   */
  check: (request: FastRequest) => HeadCheck<Pass> | Promise<HeadCheck<Pass>>
  /**
   * Answers one request (its body is `body`; `pass` when its head was checked already); may throw
   * or reject: the connection then gets a 500 and closes.
   */
  serve: (request: FastRequest, body: Buffer, pass?: Pass) => FastAnswer | Promise<FastAnswer>
  /** The answer to a request whose serve() threw (a 500 with a correlation id). */
  failed: (error: unknown) => FastAnswer
  /** True once the server is closing: every answer then ends its connection. */
  closing: () => boolean
}

export type FastPathOptions = ParseLimits & {
  /** A request's head and body must arrive within this long, else 408 and close (node:http's requestTimeout). */
  requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this long (node:http's keepAliveTimeout and keepAliveTimeoutBuffer). */
  keepAliveTimeoutMs: number
  /**
   * Requests answered at once per event-loop turn (those waiting for the database are not
   * counted) while connections are arriving (one arrived in the last 1-2 s); the rest wait, in
   * arrival order, for the next turns. Node 20 accepts one new connection per turn, so short
   * turns are what lets a burst of thousands of connections in; with none arriving the bound
   * would only cost (a turn more per few requests: 1.6 µs per request of 16). 0 = no bound.
   */
  requestsPerTurn: number
}
