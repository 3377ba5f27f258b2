import { rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createLogger, demoNetworksConfig, demoSampleNodeUrl, type Env, formatLogLine, parseEnv, resolveNetworksConfig } from '@uncle-rpc/config'
import { createDb, migrateDatabase } from '@uncle-rpc/db'
import { latestUncle } from '@uncle-rpc/db/chain'
import { demoKey, demoKeyPath } from '../demoKey.js'
import { startBanner, usesBundledNode } from '../startBanner.js'
import { parseMetrics, type Sample } from '@uncle-rpc/metrics'
import { sleep, untilSignal } from '@uncle-rpc/process'
import { createLiveBlock, type LiveBlock } from '../liveBlock.js'
import { type LiveSample, networkStatuses, renderNetworkLine } from '../liveStatus.js'
import { checkServices } from '../services.js'
import { type Child, ChildExitedError, startChild, stopChildren } from '../supervisor.js'

const usage = `Usage: uncle-rpc start [--config <file>] [--port <p>]   (npm start)

Starts the whole system on one machine: applies migrations, starts the bundled sample node on
a synthetic chain (for the demo network, and for the networks of a config whose rpcUrl is
http://127.0.0.1:<--node-port>), the indexer, the RPC server and the developer dashboard (open
sign-up, on 127.0.0.1), makes a demo API key (kept in .uncle-rpc/ and reused by the next start
while it is live), and prints every network's HTTP and WebSocket URLs with a curl that answers,
the dashboard's URL and the \`status\` command that reads the same config.
On a terminal, logs are readable lines and one live line per network shows indexed / target,
blocks/s, ETA and requests/s (the indexer's and the rpc's metrics); otherwise, or with
--log-format json, logs are JSON lines. Ctrl-C stops everything.

Flags:
  --config <file>        networks config (JSON); default $UNCLE_RPC_CONFIG, else the demo network
  --port <n>             RPC port (default 8545; 0 = any free port)
  --node-port <n>        sample node port (default 8546; 0 = any free port)
  --dashboard-port <n>   dashboard port (default 8547; 0 = any free port)
  -h, --help

Needs PostgreSQL ($DATABASE_URL) and Redis ($REDIS_URL: redis://…, or redis+sentinel://… under
Redis Sentinel) running.
`


async function waitForUncle(env: Env, network: string, children: readonly Child[]) {
  const database = createDb({ url: env.DATABASE_URL, max: 1 })
  try {
    for (;;) {
      const uncle = await latestUncle(database.db, { network })
      if (uncle) return uncle
      const dead = children.find((c) => c.process.exitCode !== null)
      if (dead) throw new ChildExitedError(`${dead.name} stopped (exit ${dead.process.exitCode}); see its log above`)
      await sleep(500)
    }
  } finally {
    await database.close()
  }
}

async function scrape(url: string): Promise<readonly Sample[]> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) })
    return res.ok ? parseMetrics(await res.text()) : []
  } catch {
    // Note: a child that is starting or stopping has no metrics yet; the line shows "waiting".
    return []
  }
}

/** Scrapes the indexer and the rpc every second and redraws one line per network; returns stop(). */
function showLiveStatus(block: LiveBlock, urls: { indexer: string; rpc: string }, networks: readonly string[]): () => void {
  const window: LiveSample[] = []
  const width = Math.max(...networks.map((n) => n.length))
  let stopped = false
  const tick = async () => {
    const [indexer, rpc] = await Promise.all([scrape(urls.indexer), scrape(urls.rpc)])
    if (stopped) return
    window.push({ at: Date.now(), indexer, rpc })
    // Note: rates over the last ~5 s, so one slow second does not make the line jump.
    if (window.length > 6) window.shift()
    block.update(networkStatuses(networks, window).map((s) => renderNetworkLine(s, width)))
  }
  const timer = setInterval(() => void tick(), 1000)
  void tick()
  return () => {
    stopped = true
    clearInterval(timer)
    block.close()
  }
}

/** A child's log line for the terminal: readable, and the indexer's periodic progress lines left to the live view. */
function terminalLogLine(line: string): string | undefined {
  if (line.startsWith('{')) {
    try {
      const entry = JSON.parse(line) as { msg?: unknown; name?: unknown }
      if (entry.name === 'indexer' && entry.msg === 'progress') return undefined
    } catch {
      // Note: not JSON after all; shown as it is below.
    }
  }
  return formatLogLine(line, { color: true })
}

/** `uncle-rpc start`: the newcomer's one command. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      port: { type: 'string', default: '8545' },
      'node-port': { type: 'string', default: new URL(demoSampleNodeUrl).port },
      'dashboard-port': { type: 'string', default: '8547' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) {
    process.stdout.write(usage)
    return 0
  }
  const env = parseEnv(process.env)
  const logger = createLogger({ level: env.LOG_LEVEL, name: 'start', format: env.LOG_FORMAT })
  const problems = await checkServices(env)
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n\n')}\n`)
    return 1
  }
  const migrated = await migrateDatabase({ url: env.DATABASE_URL, logger })
  logger.info({ msg: 'database ready', database: migrated.database, applied: migrated.applied })

  let config = resolveNetworksConfig(env, values.config)
  const configPath = values.config ?? env.UNCLE_RPC_CONFIG
  // The bundled sample node runs for the demo config, and for a config whose networks point at it
  // (http://127.0.0.1:<--node-port>), so a config can keep the demo network and add others.
  const demo = configPath === undefined
  const nodePort = values['node-port']
  const sampleNode = new Set(demo ? config.networks.map((n) => n.name) : config.networks.filter((n) => usesBundledNode(n, nodePort)).map((n) => n.name))
  // On a terminal the children log JSON to us, and we print readable lines above the live view.
  const block = process.stdout.isTTY === true && env.LOG_FORMAT !== 'json' ? createLiveBlock((text) => process.stdout.write(text)) : undefined
  const say = (text: string) => (block === undefined ? process.stdout.write(text) : block.log(text))
  const onLogLine =
    block === undefined
      ? undefined
      : (line: string) => {
          const text = terminalLogLine(line)
          if (text !== undefined) block.log(text)
        }
  const childEnv = { ...process.env, LOG_LEVEL: env.LOG_LEVEL, LOG_FORMAT: block === undefined ? env.LOG_FORMAT : 'json' }
  let stopLive = () => {}
  const effectiveConfig = join(tmpdir(), `uncle-rpc-start-${process.pid}.json`)
  const runConfig = configPath === undefined ? effectiveConfig : resolve(configPath)
  const configArgs = () => ['--config', runConfig]
  const children: Child[] = []
  const stopped = untilSignal()
  // Startup waits give up when a signal arrives (children are stopped in `finally`).
  const untilStopped = <T>(promise: Promise<T>): Promise<T> =>
    Promise.race([promise, stopped.then((signal): never => { throw new ChildExitedError(`stopped by ${signal} while starting`) })])
  try {
    if (sampleNode.size > 0) {
      const node = startChild('sample-node', ['sample-node', '--port', nodePort], childEnv, onLogLine)
      children.push(node)
      const line = await untilStopped(node.waitForLine(/^sample-node listening on (http:\/\/\S+)/m))
      if (demo) {
        // Note: the node may be on another port than the demo default; the others get its real URL.
        config = demoNetworksConfig(line[1] as string)
        writeFileSync(effectiveConfig, JSON.stringify(config))
      }
    }
    const indexer = startChild('indexer', ['indexer', ...configArgs(), '--metrics-port', '0'], childEnv, onLogLine)
    const rpc = startChild('rpc', ['rpc', ...configArgs(), '--port', values.port, '--metrics-port', '0'], childEnv, onLogLine)
    children.push(indexer, rpc)
    const listening = await untilStopped(rpc.waitForLine(/^rpc listening on http:\/\/(\S+?)\/v3\/<API_KEY>/m))
    const base = listening[1] as string
    const dashboard = startChild(
      'dashboard',
      ['dashboard', ...configArgs(), '--port', values['dashboard-port'], '--signup', 'open', '--rpc-url', `http://${base}`],
      childEnv,
      onLogLine,
    )
    children.push(dashboard)
    const dashboardUrl = (await untilStopped(dashboard.waitForLine(/^dashboard listening on (http:\/\/\S+)/m)))[1] as string
    const metrics = {
      rpc: (await untilStopped(rpc.waitForLine(/^rpc metrics on (\S+)/m)))[1] as string,
      indexer: (await untilStopped(indexer.waitForLine(/^indexer metrics on (\S+)/m)))[1] as string,
    }
    if (block !== undefined) stopLive = showLiveStatus(block, metrics, config.networks.map((n) => n.name))

    const database = createDb({ url: env.DATABASE_URL, max: 1 })
    const { key, created } = await untilStopped(demoKey(database.db, demoKeyPath(join(process.cwd(), '.uncle-rpc'), env.DATABASE_URL))).finally(() => database.close())

    const found = await Promise.race([
      Promise.all(config.networks.map(async (n) => [n.name, await waitForUncle(env, n.name, children)] as const)),
      stopped.then(() => null),
    ])
    if (found) {
      say(
        startBanner({
          networks: config.networks,
          sampleNode,
          rpcBase: `http://${base}`,
          key,
          keyCreated: created,
          uncles: new Map(found),
          dashboardUrl,
          smtp: env.SMTP_URL !== undefined,
          metrics,
          configPath: runConfig,
        }),
      )
    }
    let stopping = false
    const crashed = children.map(async (c) => {
      const code = await c.exited
      const line = `uncle-rpc start: ${c.name} exited (${code}); stopping everything\n`
      if (stopping) return 1
      if (block === undefined) process.stderr.write(line)
      else block.log(line)
      return 1
    })
    const outcome = await Promise.race([stopped.then(() => 0), ...crashed])
    stopping = true
    return outcome
  } finally {
    stopLive()
    await stopChildren(children)
    rmSync(effectiveConfig, { force: true })
  }
}
