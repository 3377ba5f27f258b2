import { readFileSync } from 'node:fs'
import type { Socket } from 'node:net'
import WebSocket from 'ws'

// The WebSocket load generator of bench/rpc.ts (wrk has no WebSocket), run as its own process
// pinned to the load core:
//   node --import tsx bench/wsLoad.ts <ws url> <bodies file> <connections> <depth> <warmup s> <seconds>
// Each connection keeps `depth` messages in flight (pipelined: a next one is sent for each answer,
// those of one read in one write), each a body of the file picked at random with its id replaced by a sequence number,
// which matches answers to sends (answers may come back out of order; an answer whose id was not
// sent, or was answered already, counts as failed). Prints one JSON line:
// messages, seconds, p50/p99/max latency (ms), and this process's CPU use over the measured
// window as a share of one core (near 1.0 would mean the generator is the ceiling).

const [url, bodiesFile, connectionsText, depthText, warmupText, secondsText] = process.argv.slice(2)
if (url === undefined || bodiesFile === undefined) {
  process.stderr.write('usage: wsLoad.ts <ws url> <bodies file> <connections> <depth> <warmup s> <seconds>\n')
  process.exit(2)
}
const connections = Number(connectionsText ?? 8)
const depth = Number(depthText ?? 8)
const warmupMs = Number(warmupText ?? 2) * 1000
const measureMs = Number(secondsText ?? 5) * 1000

// Each body split around its id: prefix + sequence number + suffix, as bytes.
const templates = readFileSync(bodiesFile, 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => {
    const match = /"id":\d+/.exec(line)
    if (match === null) throw new Error(`no numeric id in ${line}`)
    return [Buffer.from(line.slice(0, match.index + 5), 'latin1'), Buffer.from(line.slice(match.index + match[0].length), 'latin1')] as const
  })

let measuring = false
let stopping = false
let messages = 0
let failed = 0
const latencies: number[] = []

// An answer's opening, as JSON-RPC servers write it: the id's digits follow it.
const answerHead = Buffer.from('{"jsonrpc":"2.0","id":', 'latin1')
// A send's time by its id's low bits: ids are sequential per socket and at most `depth` are in flight.
const slots = 2 ** Math.ceil(Math.log2(Math.max(2, depth) * 64))

/** Writes a client's text frame (masked, as a client's must be; the mask key is zero, which leaves the bytes as they are) of `prefix` + id + `suffix` into `into` at `at`; returns where it ends. */
function writeClientFrame(into: Buffer, at: number, prefix: Buffer, id: string, suffix: Buffer): number {
  const length = prefix.length + id.length + suffix.length
  into[at] = 0x81
  let head = 6
  if (length < 126) into[at + 1] = 0x80 | length
  else {
    into[at + 1] = 0x80 | 126
    into.writeUInt16BE(length, at + 2)
    head = 8
  }
  into.fill(0, at + head - 4, at + head)
  let to = at + head
  to += prefix.copy(into, to)
  for (let i = 0; i < id.length; i++) into[to++] = id.charCodeAt(i)
  to += suffix.copy(into, to)
  return to
}

/** A pong (opcode 10) echoing `payload`, masked with a zero key. */
function pongFrame(payload: Buffer): Buffer {
  const frame = Buffer.alloc(6 + payload.length)
  frame[0] = 0x8a
  frame[1] = 0x80 | payload.length
  payload.copy(frame, 6)
  return frame
}

// Note: ws opens the connection (the handshake); the frames are then written and read here, on
// its socket: ws's reader, per-message buffers and events cost the generator more than the
// servers it drives (it was the ceiling of both anvil's row and ours, at 95-99% of its core).
// Each answer's id is read from its bytes and the calls that replace the answers of one read are
// framed into one buffer: a string per answer and a buffer per call made the generator the
// ceiling of our WebSocket row again (85-94% of its core).
function run(): Promise<void> {
  return new Promise((finished, fail) => {
    const ws = new WebSocket(url!, { perMessageDeflate: false })
    const sentAt = new Float64Array(slots)
    const sentId = new Float64Array(slots).fill(-1)
    let sequence = 0
    let inFlight = 0
    /** Frames `count` calls, each a body of the file picked at random with the next sequence number as its id, into one buffer. */
    const nextCalls = (count: number): Buffer => {
      const picked = Array.from({ length: count }, () => templates[Math.floor(Math.random() * templates.length)]!)
      const out = Buffer.allocUnsafe(picked.reduce((n, [prefix, suffix]) => n + prefix.length + suffix.length + 8 + 16, 0))
      let at = 0
      const now = performance.now()
      for (const [prefix, suffix] of picked) {
        const id = ++sequence
        sentAt[id & (slots - 1)] = now
        sentId[id & (slots - 1)] = id
        at = writeClientFrame(out, at, prefix, String(id), suffix)
      }
      inFlight += count
      return out.subarray(0, at)
    }
    ws.once('open', () => {
      const socket = (ws as unknown as { _socket: Socket })._socket
      socket.removeAllListeners('data')
      let pending: Buffer | undefined
      socket.on('data', (chunk: Buffer) => {
        const bytes = pending === undefined ? chunk : Buffer.concat([pending, chunk])
        pending = undefined
        const pongs: Buffer[] = []
        let answered = 0
        let at = 0
        const now = performance.now()
        while (bytes.length - at >= 2) {
          const opcode = (bytes[at] as number) & 0x0f
          let length = (bytes[at + 1] as number) & 0x7f
          let head = 2
          if (length === 126) {
            if (bytes.length - at < 4) break
            length = bytes.readUInt16BE(at + 2)
            head = 4
          } else if (length === 127) {
            if (bytes.length - at < 10) break
            length = Number(bytes.readBigUInt64BE(at + 2))
            head = 10
          }
          if (bytes.length - at < head + length) break
          const from = at + head
          at = from + length
          if (opcode === 9) pongs.push(pongFrame(bytes.subarray(from, at)))
          if (opcode !== 1) continue
          // The id: the digits right after the answer's opening.
          let id = -1
          if (length > answerHead.length && bytes.compare(answerHead, 0, answerHead.length, from, from + answerHead.length) === 0) {
            id = 0
            let i = from + answerHead.length
            while (i < at && (bytes[i] as number) >= 48 && (bytes[i] as number) <= 57) id = id * 10 + (bytes[i++] as number) - 48
          }
          const slot = id & (slots - 1)
          if (id <= 0 || sentId[slot] !== id) failed++
          else {
            sentId[slot] = -1
            if (measuring) {
              messages++
              latencies.push(now - (sentAt[slot] as number))
            }
          }
          inFlight--
          answered++
        }
        if (at < bytes.length) pending = bytes.subarray(at)
        if (stopping && inFlight === 0) {
          ws.terminate()
          return
        }
        // Note: the calls that replace the answers of one read leave in one write, as a client
        // pipelining its calls sends them; a write per call made the generator the ceiling again.
        const calls = !stopping && answered > 0 ? nextCalls(answered) : undefined
        if (pongs.length > 0 || calls !== undefined) socket.write(pongs.length === 0 ? calls! : Buffer.concat(calls === undefined ? pongs : [...pongs, calls]))
      })
      socket.write(nextCalls(depth))
    })
    ws.once('close', () => finished())
    ws.once('error', fail)
  })
}

const runs = Array.from({ length: connections }, run)
await new Promise((resolve) => setTimeout(resolve, warmupMs))
const cpuBefore = process.cpuUsage()
const started = performance.now()
measuring = true
await new Promise((resolve) => setTimeout(resolve, measureMs))
measuring = false
const seconds = (performance.now() - started) / 1000
const cpu = process.cpuUsage(cpuBefore)
stopping = true
await Promise.all(runs)
latencies.sort((a, b) => a - b)
const at = (q: number) => Math.round((latencies[Math.floor(q * (latencies.length - 1))] ?? Number.NaN) * 100) / 100
process.stdout.write(
  `${JSON.stringify({ messages, seconds, p50: at(0.5), p99: at(0.99), max: at(1), failed, loadCpu: (cpu.user + cpu.system) / 1e6 / seconds })}\n`,
)
