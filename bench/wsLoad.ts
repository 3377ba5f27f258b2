import { readFileSync } from 'node:fs'
import type { Socket } from 'node:net'
import WebSocket from 'ws'

// The WebSocket load generator of bench/rpc.ts (wrk has no WebSocket), run as its own process
// pinned to the load core:
//   node --import tsx bench/wsLoad.ts <ws url> <bodies file> <connections> <depth> <warmup s> <seconds>
// Each connection keeps `depth` messages in flight (pipelined: a next one is sent for each answer,
// those of one read in one write), each a body of the file picked at random with its id replaced by a sequence number,
// which matches answers to sends (answers may come back out of order). Prints one JSON line:
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

// Each body split around its id: prefix + sequence number + suffix.
const templates = readFileSync(bodiesFile, 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => {
    const match = /"id":\d+/.exec(line)
    if (match === null) throw new Error(`no numeric id in ${line}`)
    return [line.slice(0, match.index + 5), line.slice(match.index + match[0].length)] as const
  })

let measuring = false
let stopping = false
let messages = 0
let failed = 0
const latencies: number[] = []

/** A client's frame (masked, as a client's must be; the mask key is zero, which leaves the bytes as they are). */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length
  const head = length < 126 ? 6 : 8
  const frame = Buffer.alloc(head + length)
  frame[0] = 0x80 | opcode
  if (length < 126) frame[1] = 0x80 | length
  else {
    frame[1] = 0x80 | 126
    frame.writeUInt16BE(length, 2)
  }
  payload.copy(frame, head)
  return frame
}

// Note: ws opens the connection (the handshake); the frames are then written and read here, on
// its socket: ws's reader, per-message buffers and events cost the generator more than the
// servers it drives (it was the ceiling of both anvil's row and ours, at 95-99% of its core).
function run(): Promise<void> {
  return new Promise((finished, fail) => {
    const ws = new WebSocket(url!, { perMessageDeflate: false })
    const sentAt = new Map<number, number>()
    let sequence = 0
    const next = () => {
      const [prefix, suffix] = templates[Math.floor(Math.random() * templates.length)]!
      const id = ++sequence
      sentAt.set(id, performance.now())
      return clientFrame(1, Buffer.from(prefix + id + suffix, 'latin1'))
    }
    ws.once('open', () => {
      const socket = (ws as unknown as { _socket: Socket })._socket
      socket.removeAllListeners('data')
      let pending: Buffer | undefined
      socket.on('data', (chunk: Buffer) => {
        const bytes = pending === undefined ? chunk : Buffer.concat([pending, chunk])
        pending = undefined
        const sends: Buffer[] = []
        let at = 0
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
          if (opcode === 9) sends.push(clientFrame(10, bytes.subarray(from, at)))
          if (opcode !== 1) continue
          const text = bytes.toString('latin1', from, Math.min(from + 48, at))
          const idAt = text.indexOf('"id":')
          const id = Number.parseInt(text.slice(idAt + 5), 10)
          const started = sentAt.get(id)
          sentAt.delete(id)
          if (started === undefined || !text.startsWith('{"jsonrpc":"2.0"')) failed++
          else if (measuring) {
            messages++
            latencies.push(performance.now() - started)
          }
          if (!stopping) sends.push(next())
          else if (sentAt.size === 0) ws.terminate()
        }
        if (at < bytes.length) pending = bytes.subarray(at)
        // Note: the calls that replace the answers of one read leave in one write, as a client
        // pipelining its calls sends them; a write per call made the generator the ceiling again.
        if (sends.length > 0) socket.write(sends.length === 1 ? sends[0]! : Buffer.concat(sends))
      })
      socket.write(Buffer.concat(Array.from({ length: depth }, next)))
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
