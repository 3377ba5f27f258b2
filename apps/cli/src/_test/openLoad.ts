import { Agent, request } from 'node:http'

// Test-only (and benches through the failover runners): an open-loop HTTP load, `rate` POSTs a
// second whatever the server does, each outcome kept with the time it was due.

export type OpenLoadResult = {
  sent: number
  /** Requests answered without error. */
  answered: number
  /** Requests answered with HTTP 200 (a JSON-RPC error among them): what the rpc counts as usage. */
  responded: number
  failed: number
  reasons: Record<string, number>
  /** Each failed request: when it was due (performance.now()) and why it failed. */
  failures: { dueAt: number; reason: string }[]
  p50Ms: number
  p99Ms: number
  maxMs: number
}

const quantile = (sorted: readonly number[], q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!)

/**
 * Sends `body()` to `url` `rate` times a second until stop(). A request fails on a status other
 * than 200, a JSON-RPC error, a transport error, 10 s without an answer, or what `check` says
 * of a 200 body (a wrong answer).
 */
export function startOpenLoad(url: string, rate: number, body: () => { text: string; check?: (answer: string) => string | undefined }) {
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY })
  const latencies: number[] = []
  const reasons: Record<string, number> = {}
  const failures: { dueAt: number; reason: string }[] = []
  let sent = 0
  let answered = 0
  let responded = 0
  let running = true
  const pending = new Set<Promise<void>>()
  const started = performance.now()
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const { text, check } = body()
      const done = (failure: string | undefined) => {
        latencies.push(performance.now() - due)
        if (failure === undefined) answered++
        else {
          reasons[failure] = (reasons[failure] ?? 0) + 1
          failures.push({ dueAt: due, reason: failure })
        }
        resolve()
      }
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' }, timeout: 10_000 }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          if (res.statusCode !== 200) return done(`http ${res.statusCode}`)
          responded++
          const answer = Buffer.concat(chunks).toString()
          const error = /"error":\{"code":(-?\d+)/.exec(answer)
          done(error === null ? check?.(answer) : `rpc ${error[1]}`)
        })
        res.on('error', () => done('response error'))
      })
      req.on('timeout', () => req.destroy(new Error('timeout')))
      req.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message))
      req.end(text)
    })
  // Note: a 1 ms timer sends whatever is due by then; latency counts from when a request was due.
  const tick = () => {
    const now = performance.now()
    while (running && started + (sent * 1000) / rate <= now) {
      const p = send(started + (sent * 1000) / rate)
      pending.add(p)
      void p.then(() => pending.delete(p))
      sent++
    }
    if (running) setTimeout(tick, 1)
  }
  tick()
  return {
    async stop(): Promise<OpenLoadResult> {
      running = false
      await Promise.all(pending)
      agent.destroy()
      latencies.sort((a, b) => a - b)
      const failed = Object.values(reasons).reduce((s, n) => s + n, 0)
      return { sent, answered, responded, failed, reasons, failures, p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99), maxMs: latencies.at(-1) ?? Number.NaN }
    },
  }
}
