import WebSocket from 'ws'
import { batchSize, type Call } from './calls.js'
import type { Window } from './summary.js'

// Open-loop load over WebSocket, the counterpart of bench/openLoop.ts for HTTP: messages leave at
// a fixed rate over a few long-lived sockets whatever the server does, each latency counted from
// the moment its message was due. A socket the server closes (a restarted rpc) is opened again;
// messages due meanwhile wait for it (their wait counts in their latency), and messages the closed
// socket had not answered fail ("closed <code>"): a client gets no answer to them.

type Pending = { window: Window; due: number; call: Call; kind: string }
type Socket = { ws: WebSocket | undefined; open: boolean; inFlight: Map<number, Pending>; backlog: { id: number; pending: Pending }[] }

export type WsOpenLoop = {
  /** Starts counting new messages in a fresh window; the previous one stays open for its answers. */
  nextWindow(): Window
  /** Resolves when every message counted in `window` was answered or failed. */
  settled(window: Window): Promise<void>
  /** Stops sending, waits for the answers (at most the timeout), closes the sockets. */
  stop(): Promise<void>
}

export function startWsOpenLoop({
  url,
  rate,
  connections,
  make,
  timeoutMs = 10_000,
}: {
  url: string
  rate: number
  connections: number
  make: (n: number) => Call
  timeoutMs?: number
}): WsOpenLoop {
  const newWindow = (): Window => ({ requests: 0, failed: 0, reasons: new Map(), latencies: [] })
  let window = newWindow()
  const outstanding = new Map<Window, number>()
  const waiters = new Map<Window, (() => void)[]>()
  let stopping = false
  let sent = 0
  const started = performance.now()

  const finish = (p: Pending, failure: string | undefined) => {
    p.window.latencies.push(performance.now() - p.due)
    if (failure !== undefined) {
      p.window.failed++
      const reason = `${p.kind} ${failure}`
      p.window.reasons.set(reason, (p.window.reasons.get(reason) ?? 0) + 1)
    }
    const left = (outstanding.get(p.window) ?? 1) - 1
    outstanding.set(p.window, left)
    if (left === 0) for (const wake of waiters.get(p.window) ?? []) wake()
  }

  const sockets: Socket[] = Array.from({ length: connections }, () => ({ ws: undefined, open: false, inFlight: new Map(), backlog: [] }))
  const connect = (s: Socket) => {
    const ws = new WebSocket(url, { perMessageDeflate: false })
    s.ws = ws
    ws.on('open', () => {
      s.open = true
      for (const { id, pending } of s.backlog.splice(0)) {
        s.inFlight.set(id, pending)
        ws.send(pending.call.body)
      }
    })
    ws.on('message', (data: Buffer) => {
      const text = data.toString()
      const id = /"id":(\d+)/.exec(text)
      const p = id === null ? undefined : s.inFlight.get(Number(id[1]))
      if (p === undefined) return
      s.inFlight.delete(Number(id![1]))
      finish(p, p.call.check(text))
    })
    ws.on('error', () => undefined) // Note: 'close' follows; what was in flight fails there.
    ws.on('close', (code) => {
      s.open = false
      for (const p of s.inFlight.values()) finish(p, `closed ${code}`)
      s.inFlight.clear()
      if (!stopping) setTimeout(() => connect(s), 100)
    })
  }
  for (const s of sockets) connect(s)

  const tick = () => {
    const now = performance.now()
    while (!stopping && started + (sent * 1000) / rate <= now) {
      const n = sent++
      const call = make(n)
      const pending: Pending = { window, due: started + (n * 1000) / rate, call, kind: `${call.kind}/ws` }
      window.requests++
      outstanding.set(window, (outstanding.get(window) ?? 0) + 1)
      const s = sockets[n % connections]!
      // Note: a batch's answer is matched by its first entry's id (the answers keep the entries' order).
      const id = n * batchSize
      if (s.open && s.ws !== undefined) {
        s.inFlight.set(id, pending)
        s.ws.send(call.body)
      } else s.backlog.push({ id, pending })
    }
  }
  const sender = setInterval(tick, 2)
  // Unanswered past the timeout: failed, and a late answer is ignored.
  const reaper = setInterval(() => {
    const limit = performance.now() - timeoutMs
    for (const s of sockets) {
      for (const [id, p] of s.inFlight) {
        if (p.due >= limit) continue
        s.inFlight.delete(id)
        finish(p, 'timeout')
      }
      const late = s.backlog.filter((b) => b.pending.due < limit)
      if (late.length > 0) s.backlog = s.backlog.filter((b) => b.pending.due >= limit)
      for (const b of late) finish(b.pending, 'timeout (not connected)')
    }
  }, 250)

  const settled = (w: Window) =>
    new Promise<void>((resolve) => {
      if ((outstanding.get(w) ?? 0) === 0) return resolve()
      waiters.set(w, [...(waiters.get(w) ?? []), resolve])
    })
  return {
    nextWindow() {
      window = newWindow()
      return window
    },
    settled,
    async stop() {
      clearInterval(sender)
      await settled(window)
      stopping = true
      clearInterval(reaper)
      for (const s of sockets) s.ws?.close()
    },
  }
}
