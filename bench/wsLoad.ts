import { readFileSync } from 'node:fs'
import WebSocket from 'ws'

// The WebSocket load generator of bench/rpc.ts (wrk has no WebSocket), run as its own process
// pinned to the load core:
//   node --import tsx bench/wsLoad.ts <ws url> <bodies file> <connections> <depth> <warmup s> <seconds>
// Each connection keeps `depth` messages in flight (pipelined: the next one is sent as each answer
// arrives), each a body of the file picked at random with its id replaced by a sequence number,
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

function run(): Promise<void> {
  return new Promise((finished, fail) => {
    const socket = new WebSocket(url!, { perMessageDeflate: false })
    const sentAt = new Map<number, number>()
    let sequence = 0
    const send = () => {
      const [prefix, suffix] = templates[Math.floor(Math.random() * templates.length)]!
      const id = ++sequence
      sentAt.set(id, performance.now())
      socket.send(prefix + id + suffix)
    }
    socket.once('open', () => {
      for (let i = 0; i < depth; i++) send()
    })
    socket.on('message', (data: Buffer) => {
      const text = data.toString('latin1', 0, 48)
      const at = text.indexOf('"id":')
      const id = Number.parseInt(text.slice(at + 5), 10)
      const started = sentAt.get(id)
      sentAt.delete(id)
      if (started === undefined || !text.startsWith('{"jsonrpc":"2.0"')) failed++
      else if (measuring) {
        messages++
        latencies.push(performance.now() - started)
      }
      if (stopping) {
        if (sentAt.size === 0) socket.close()
      } else send()
    })
    socket.once('close', () => finished())
    socket.once('error', fail)
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
