import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { freePort } from './postgresServer.js'
import { requireTool } from './tools.js'

// Test-only: a private Redis primary, one replica and three redis-sentinel processes on free
// ports under a temp dir, so a test can SIGKILL the primary and watch the sentinels promote the
// replica without touching the shared Redis. (ioredis directly: these clients talk to sentinels
// and to one server by address, which is what the product's factory is not for.)

export type SentinelGroup = {
  /** `redis+sentinel://127.0.0.1:<p1>,127.0.0.1:<p2>,127.0.0.1:<p3>/<masterName>`: REDIS_URL for processes under test. */
  url: string
  masterName: string
  sentinelPorts: readonly number[]
  /** The current primary and the other server (undefined once killed) as redis:// URLs. */
  primaryUrl(): string
  replicaUrl(): string | undefined
  /**
   * SIGKILLs the current primary and resolves once every sentinel has announced the replica's
   * promotion (+switch-master) and names it, and it answers as a primary.
   */
  killPrimary(options?: { timeoutMs?: number }): Promise<{ promotedUrl: string; failoverMs: number }>
  /**
   * A failover the sentinels are asked for (SENTINEL FAILOVER): the primary stays up and is
   * turned into a replica of the promoted one. Resolves as killPrimary does.
   */
  failOver(options?: { timeoutMs?: number }): Promise<{ promotedUrl: string; failoverMs: number }>
  /** Stops every process (SIGKILL) and removes the temp dir. */
  close(): Promise<void>
}

type Server = { port: number; child: ChildProcess; log: () => string }

/** redis-server and redis-sentinel when installed; else (outside CI) a line saying what to install, and undefined. */
export function sentinelTools(): { server: string; sentinel: string } | undefined {
  const server = requireTool('redis-server', 'redis-server')
  const sentinel = requireTool('redis-sentinel', 'redis-sentinel')
  return server === undefined || sentinel === undefined ? undefined : { server, sentinel }
}

function spawnUntil(command: string, args: readonly string[], ready: RegExp, what: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      if (out.length > 100_000) out = out.slice(-50_000)
      if (ready.test(out)) resolve({ port: 0, child, log: () => out })
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code, signal) => reject(new Error(`${what} exited (${code ?? signal}) before it was ready: ${out.slice(-800)}`)))
  })
}

async function withClient<T>(port: number, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  client.on('error', () => undefined) // Note: a failure reaches the caller through `use`'s rejection.
  try {
    await client.connect()
    return await use(client)
  } finally {
    client.disconnect()
  }
}

const arrayOfMaps = (reply: unknown): Record<string, string>[] =>
  (Array.isArray(reply) ? reply : []).map((entry: unknown) => {
    if (!Array.isArray(entry)) return (entry ?? {}) as Record<string, string>
    const map: Record<string, string> = {}
    for (let i = 0; i + 1 < entry.length; i += 2) map[String(entry[i])] = String(entry[i + 1])
    return map
  })

/**
 * Starts the group and resolves once the replica is in sync and every sentinel knows the replica
 * and the other two sentinels (so a failover can be agreed). `downAfterMs`: how long the primary
 * must be silent before a sentinel calls it down (default 1,000 ms; Redis' default is 30 s).
 */
export async function startSentinelGroup(
  tools: { server: string; sentinel: string },
  { masterName = 'uncle', downAfterMs = 1_000, timeoutMs = 30_000 }: { masterName?: string; downAfterMs?: number; timeoutMs?: number } = {},
): Promise<SentinelGroup> {
  const dir = mkdtempSync(join(tmpdir(), 'uncle-rpc-sentinel-'))
  const processes: Server[] = []
  const subscribers: Redis[] = []
  const close = async () => {
    for (const s of subscribers) s.disconnect()
    await Promise.all(
      processes.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve()
            p.child.once('exit', () => resolve())
            p.child.kill('SIGKILL')
          }),
      ),
    )
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    // Note: no diskless-sync delay (5 s by default), so the replica is in sync at once.
    const serverArgs = (port: number) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--repl-diskless-sync-delay', '0']
    const primaryPort = await freePort()
    const primary = await spawnUntil(tools.server, serverArgs(primaryPort), /Ready to accept connections/, 'the Redis primary')
    processes.push({ ...primary, port: primaryPort })
    const replicaPort = await freePort()
    const replica = await spawnUntil(
      tools.server,
      [...serverArgs(replicaPort), '--replicaof', '127.0.0.1', String(primaryPort)],
      /MASTER <-> REPLICA sync: Finished with success/,
      'the Redis replica',
    )
    processes.push({ ...replica, port: replicaPort })

    const sentinelPorts = await Promise.all([0, 1, 2].map(() => freePort()))
    // Note: each sentinel is told its id, the replica and the other sentinels up front; found on
    // their own (INFO and hello messages) they take several seconds to know each other.
    const ids = sentinelPorts.map(() => randomBytes(20).toString('hex'))
    const sentinels = await Promise.all(
      sentinelPorts.map(async (port, i) => {
        const file = join(dir, `sentinel-${i}.conf`)
        writeFileSync(
          file,
          [
            `port ${port}`,
            'bind 127.0.0.1',
            `dir ${dir}`,
            `sentinel myid ${ids[i]}`,
            `sentinel monitor ${masterName} 127.0.0.1 ${primaryPort} 2`,
            `sentinel known-replica ${masterName} 127.0.0.1 ${replicaPort}`,
            ...sentinelPorts.flatMap((other, k) => (k === i ? [] : [`sentinel known-sentinel ${masterName} 127.0.0.1 ${other} ${ids[k]}`])),
            `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
            `sentinel failover-timeout ${masterName} ${Math.max(10_000, downAfterMs * 10)}`,
            `sentinel parallel-syncs ${masterName} 1`,
            '',
          ].join('\n'),
        )
        const sentinel = await spawnUntil(tools.sentinel, [file], /\+monitor master/, `sentinel ${i}`)
        return { ...sentinel, port }
      }),
    )
    processes.push(...sentinels)

    // Each sentinel must know the replica and both other sentinels: subscribe to the events that
    // report them first, then look at what it knows already, so no discovery is missed.
    await Promise.race([
      Promise.all(
        sentinels.map(async ({ port }) => {
          const events = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 })
          subscribers.push(events)
          events.on('error', () => undefined)
          await events.subscribe('+sentinel', '+slave', '+slave-reconf-done')
          const knowsEnough = () =>
            withClient(port, async (c) => {
              const others = arrayOfMaps(await c.call('SENTINEL', 'SENTINELS', masterName))
              const replicas = arrayOfMaps(await c.call('SENTINEL', 'REPLICAS', masterName))
              return others.length >= 2 && replicas.some((r) => r.port === String(replicaPort) && !/s_down|disconnected/.test(r.flags ?? ''))
            })
          await new Promise<void>((resolve, reject) => {
            let checking = Promise.resolve()
            const check = () => {
              checking = checking.then(async () => {
                if (await knowsEnough()) resolve()
              }, reject)
            }
            events.on('message', check)
            check()
          })
          events.disconnect()
        }),
      ),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`the sentinels did not find each other and the replica within ${timeoutMs} ms`)), timeoutMs).unref()),
    ])

    let primaryIndex = 0
    const serverUrl = (index: number) => `redis://127.0.0.1:${processes[index]!.port}`
    /** Runs `trigger` and waits until every sentinel has announced and names the other server as primary, which says ROLE master. */
    const promote = async (timeoutMs: number, trigger: () => Promise<void>) => {
      const promotedIndex = 1 - primaryIndex
      const promotedPort = String(processes[promotedIndex]!.port)
      // Subscribed before the trigger, so no sentinel's announcement is missed.
      const watchers = sentinels.map(({ port }) => new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 }))
      subscribers.push(...watchers)
      const announcements = watchers.map(
        (w) =>
          new Promise<void>((resolve) => {
            w.on('error', () => undefined)
            w.on('message', (_channel: string, message: string) => {
              // `<name> <old ip> <old port> <new ip> <new port>`
              const [name, , , , port] = message.split(' ')
              if (name === masterName && port === promotedPort) resolve()
            })
          }),
      )
      await Promise.all(watchers.map((w) => w.subscribe('+switch-master')))
      const started = performance.now()
      await trigger()
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        Promise.all(announcements),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no failover within ${timeoutMs} ms; sentinel 0 said:\n${sentinels[0]!.log().slice(-2000)}`)), timeoutMs)
        }),
      ]).finally(() => clearTimeout(timer))
      const failoverMs = Math.round(performance.now() - started)
      for (const w of watchers) w.disconnect()
      for (const { port } of sentinels) {
        const named = (await withClient(port, (c) => c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName))) as string[]
        if (named[1] !== promotedPort) throw new Error(`sentinel on ${port} names ${named.join(':')}, not the promoted 127.0.0.1:${promotedPort}`)
      }
      const role = (await withClient(processes[promotedIndex]!.port, (c) => c.call('ROLE'))) as unknown[]
      if (role[0] !== 'master') throw new Error(`the promoted server answers ROLE ${String(role[0])}`)
      primaryIndex = promotedIndex
      return { promotedUrl: serverUrl(promotedIndex), failoverMs }
    }
    return {
      url: `redis+sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/${masterName}`,
      masterName,
      sentinelPorts,
      primaryUrl: () => serverUrl(primaryIndex),
      replicaUrl: () => (processes[1 - primaryIndex]!.child.exitCode === null && processes[1 - primaryIndex]!.child.signalCode === null ? serverUrl(1 - primaryIndex) : undefined),
      killPrimary: ({ timeoutMs = 30_000 } = {}) =>
        promote(timeoutMs, async () => {
          const victim = processes[primaryIndex]!
          const exited = new Promise<void>((resolve) => victim.child.once('exit', () => resolve()))
          victim.child.kill('SIGKILL')
          await exited
        }),
      failOver: ({ timeoutMs = 30_000 } = {}) =>
        promote(timeoutMs, async () => {
          await withClient(sentinels[0]!.port, (c) => c.call('SENTINEL', 'FAILOVER', masterName))
        }),
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}
