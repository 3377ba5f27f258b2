import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { type CliProcess, spawnCli } from '@uncle-rpc/testing'
import { partialHeadsThenFin, pingFlood, refusedBodies, sentOrClosed, trickledBody, trickleThenHandOff } from '../apps/rpc/src/_test/abuse.js'
import { closeWaitOn, cpuMs, sleep, withPeakRss } from '../apps/rpc/src/_test/rpcProcess.js'
import { benchRoot } from './rpcLoad.js'
import { createBenchDatabase } from './rpcSetup.js'

// npm run bench:abuse -- [--baseline DIR] [--request-timeout-ms 8000]
// The wire under abuse (docs/rpc.md, "Under abuse"), each attack against a fresh `uncle-rpc rpc`
// process of this checkout, of node:http and ws alone (`--fast-path off`) and, with --baseline,
// of another checkout with its own node_modules (e.g. a worktree of an older commit):
//   ping flood    60 MB of pings on one WebSocket that never reads: when the server closed it, RSS growth
//   401 bodies    40 connections sending whole 5 MiB bodies with an unknown key: the slowest 401, the server's RSS
//                 peak growth until every body was sent or cut, + 1 s (sampled every 50 ms, no GC forced)
//   trickle       4 connections each trickling the last 1,000 bytes of a ~5 MiB body one per write:
//                 server CPU per write (alone; also net of the server's CPU at rest), then again with
//                 another client on one keep-alive connection: its p99 meanwhile, and alone before
//   FIN           1,000 partial heads + FIN: server sockets in CLOSE-WAIT 2 s later
//   handoff       a head trickled for timeout - 1 s, then handed to node:http: when the 408 came
// Figures on a shared machine move with its load: compare within one run.

const { values: flags } = parseArgs({ options: { baseline: { type: 'string' }, 'request-timeout-ms': { type: 'string', default: '8000' } } })
const timeoutMs = Number(flags['request-timeout-ms'])
const log = (line: string) => process.stderr.write(`${line}\n`)

type Target = { label: string; root: string; args: string[] }

async function start(target: Target, databaseUrl: string, config: string): Promise<{ cli: CliProcess; port: number; pid: number }> {
  const cli = spawnCli(['rpc', '--config', config, '--port', '0', '--rate-limits', 'off', '--request-timeout-ms', String(timeoutMs), ...target.args], {
    env: { DATABASE_URL: databaseUrl },
    bin: join(target.root, 'apps/cli/bin/uncle-rpc.js'),
    cwd: target.root,
  })
  const match = await cli.waitFor(/rpc listening on http:\/\/127\.0\.0\.1:(\d+)\//, 60_000)
  return { cli, port: Number(match[1]), pid: cli.child.pid ?? 0 }
}

/** Another client's calls on one keep-alive connection until `stop` resolves: its p99 latency (ms). */
async function otherClientP99(port: number, key: string, stop: Promise<unknown>): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'
  const latencies: number[] = []
  let done = false
  void stop.then(() => (done = true))
  while (!done) {
    const started = performance.now()
    await new Promise<void>((resolveCall) => {
      const req = request({ port, host: '127.0.0.1', path: `/v3/${key}`, method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume()
        res.on('end', () => resolveCall())
      })
      req.on('error', () => resolveCall())
      req.end(body)
    })
    latencies.push(performance.now() - started)
  }
  agent.destroy()
  latencies.sort((a, b) => a - b)
  return latencies[Math.floor(latencies.length * 0.99)] ?? Number.NaN
}

async function measure(target: Target, databaseUrl: string, config: string, key: string): Promise<string> {
  const cells: string[] = []
  const fresh = () => start(target, databaseUrl, config)
  let server = await fresh()
  try {
    const [flood, floodRss] = await withPeakRss(server.pid, () => pingFlood(`ws://127.0.0.1:${server.port}/ws/v3/${key}`, 60, 10_000))
    cells.push(`${flood.closedMs === undefined ? `open after ${flood.sentMb.toFixed(0)} MB + 10 s` : `closed at ${flood.closedMs} ms`}, +${floodRss.toFixed(0)} MB`)
    await server.cli.stop('SIGKILL')

    server = await fresh()
    const length = 5 * 1024 * 1024
    const [refused, refusedRss] = await withPeakRss(server.pid, async () => {
      const result = await refusedBodies(server.port, 40, length, length, 30_000)
      // Note: sampled until every body has left its client or the server cut it, so a server that reads and drops them (node:http) is seen doing all of it.
      await sentOrClosed(result.clients, 30_000)
      await sleep(1000)
      for (const c of result.clients) c.socket.destroy()
      return result
    })
    const slowest = refused.answeredMs.some((ms) => ms === undefined) ? 'none within 30 s' : `${Math.max(...(refused.answeredMs as number[]))} ms`
    cells.push(`${refused.clients.filter((c) => c.text().startsWith('HTTP/1.1 401')).length}/40 got 401, slowest ${slowest}, +${refusedRss.toFixed(0)} MB`)
    await server.cli.stop('SIGKILL')

    server = await fresh()
    const s = server
    const restingCpu = cpuMs(s.pid)
    await sleep(2000)
    const idleMsPerS = (cpuMs(s.pid) - restingCpu) / 2
    // Note: the other client alone first (its p99 on this machine now), after 1 s of warming up (the key looked up, the code compiled).
    await otherClientP99(s.port, key, sleep(1000))
    const p99Alone = await otherClientP99(s.port, key, sleep(2000))
    const trickle = () => Promise.all(Array.from({ length: 4 }, () => trickledBody(s.port, s.pid, key, length - 1024, 1000)))
    // Note: the CPU per write with no other client; the four ran at once, so the CPU each saw is the server's for all four writes of a round.
    const [cpu] = await trickle()
    const perWrite = cpu!.cpuPerWriteMs / 4
    const netPerWrite = (cpu!.cpuPerWriteMs * 1000 - (idleMsPerS * cpu!.windowMs) / 1000) / 4000
    const trickles = trickle()
    const [, p99] = await Promise.all([trickles, sleep(600).then(() => otherClientP99(s.port, key, trickles))])
    cells.push(
      `${perWrite.toFixed(3)} ms CPU/write (${netPerWrite.toFixed(3)} net of ${idleMsPerS.toFixed(0)} ms/s at rest), other client's p99 ${p99.toFixed(1)} ms (${p99Alone.toFixed(1)} ms alone)`,
    )

    await partialHeadsThenFin(server.port, key, 1000)
    await sleep(2000)
    cells.push(`${closeWaitOn(server.port)} in CLOSE-WAIT`)

    const handed = await trickleThenHandOff(server.port, key, timeoutMs - 1000, 3 * timeoutMs)
    cells.push(`${handed.text.split('\r\n')[0] || 'nothing'} at ${handed.closedMs ?? 'never'} ms`)
  } finally {
    await server.cli.stop('SIGKILL')
  }
  return `| ${target.label} | ${cells.join(' | ')} |`
}

async function main(): Promise<void> {
  const bench = await createBenchDatabase()
  const targets: Target[] = [
    { label: 'this checkout', root: benchRoot, args: [] },
    { label: 'node:http and ws alone (--fast-path off)', root: benchRoot, args: ['--fast-path', 'off'] },
  ]
  if (flags.baseline !== undefined) targets.push({ label: `baseline (${flags.baseline})`, root: resolve(flags.baseline), args: [] })
  const lines = [
    `--request-timeout-ms ${timeoutMs}; load average before: ${readFileSync('/proc/loadavg', 'utf8').trim()}`,
    '',
    '| server | ping flood, 60 MB, never read | 40 × 5 MiB bodies, unknown key | 4 body trickles | 1,000 partial heads + FIN, 2 s later | handoff after timeout - 1 s of trickle |',
    '| --- | --- | --- | --- | --- | --- |',
  ]
  try {
    for (const target of targets) {
      log(`measuring ${target.label}…`)
      lines.push(await measure(target, bench.url, bench.config, bench.key))
    }
  } finally {
    await bench.drop()
  }
  process.stdout.write(`${lines.join('\n')}\n`)
}

main().catch((error: unknown) => {
  log(String((error as Error).stack ?? error))
  process.exit(1)
})
