import { Agent, request } from 'node:http'

// An open-loop load generator: requests leave at a fixed rate whatever the server does (a slow
// server does not slow the sender, as it does wrk's closed loop), and each latency is counted from
// the moment its request was due, so a stalled sender cannot hide a stalled server.

export type OpenLoopResult = {
  sent: number
  /** 200 with a `result` member (not an error). */
  answered: number
  failed: number
  /** Why requests failed: `http <status>` (with `rpc <code>` when its body is a JSON-RPC error), `rpc <code>`, or the socket error's code. */
  reasons: Map<string, number>
  /** Latency of every answered and failed request (ms), sorted. */
  latencies: number[]
}

export type OpenLoopOptions = {
  url: string
  /** Requests per second. */
  rate: number
  seconds: number
  /** A body for the nth request. */
  body: (n: number) => string
  /** A request still unanswered after this long fails (ms). Default 10,000. */
  timeoutMs?: number
  /** Why the nth request's 200 answer is wrong (a failure reason), or undefined when it is right. Default: any `error` member. */
  check?: (n: number, text: string) => string | undefined
  /** The nth request's kind, put before each of its failure reasons (`known http 503`). */
  kind?: (n: number) => string
}

/** Sends `rate` requests a second for `seconds`; resolves when every one was answered or failed. */
export async function openLoop({ url, rate, seconds, body, timeoutMs = 10_000, check = rpcError, kind }: OpenLoopOptions): Promise<OpenLoopResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY })
  const result: OpenLoopResult = { sent: 0, answered: 0, failed: 0, reasons: new Map(), latencies: [] }
  const total = Math.round(rate * seconds)
  const started = performance.now()
  const pending: Promise<void>[] = []
  const fail = (reason: string) => {
    result.failed++
    result.reasons.set(reason, (result.reasons.get(reason) ?? 0) + 1)
  }

  const send = (n: number, due: number) =>
    new Promise<void>((resolve) => {
      const done = (failure: string | undefined) => {
        result.latencies.push(performance.now() - due)
        if (failure === undefined) result.answered++
        else fail(kind === undefined ? failure : `${kind(n)} ${failure}`)
        resolve()
      }
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' }, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString()
          // Note: a 503 of the rpc (a key it cannot check) and one of HAProxy (no server up) differ only in the body.
          if (res.statusCode !== 200) return done([`http ${res.statusCode}`, rpcError(n, text)].filter(Boolean).join(' '))
          done(check(n, text))
        })
        res.on('error', () => done('response error'))
      })
      req.on('timeout', () => req.destroy(new Error('timeout')))
      req.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message))
      req.end(body(n))
    })

  // Note: a timer every millisecond sends what is due by then; a timer per request would not keep 600/s on a loaded core.
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now()
      while (result.sent < total && started + (result.sent * 1000) / rate <= now) {
        const due = started + (result.sent * 1000) / rate
        pending.push(send(result.sent, due))
        result.sent++
      }
      if (result.sent < total) setTimeout(tick, 1)
      else resolve()
    }
    tick()
  })
  await Promise.all(pending)
  agent.destroy()
  result.latencies.sort((a, b) => a - b)
  return result
}

/** `rpc <code>` when a JSON-RPC answer carries an error, else undefined. */
function rpcError(_n: number, text: string): string | undefined {
  const error = /"error":\{"code":(-?\d+)/.exec(text)
  return error === null ? undefined : `rpc ${error[1]}`
}

/** The `q` quantile (0..1) of sorted values; NaN when there are none. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
}
