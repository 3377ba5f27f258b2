import { type ChildProcess, spawn } from 'node:child_process'
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, runAs } from './postgresServer.js'
import { findTool } from './tools.js'

// Test-only: Debian's PgBouncer (1.18) on a free loopback port in front of a Postgres (the shared
// one on 5432 or a private startPostgresServer), in transaction or session pool mode, as operators
// deploy it. Every database name is passed through (`* =`), so tests keep their own databases.

export type PgBouncerPoolMode = 'transaction' | 'session'

export type PgBouncerOptions = {
  /** The Postgres behind it (default 127.0.0.1:5432). */
  upstream?: { host?: string; port: number }
  poolMode: PgBouncerPoolMode
  /**
   * Startup parameters PgBouncer accepts and drops (`ignore_startup_parameters`); none by default,
   * as in PgBouncer's own defaults, which refuse any parameter it does not know (statement_timeout).
   */
  ignoreStartupParameters?: readonly string[]
  /** Server connections per database/user pair (`default_pool_size`, default 10). */
  poolSize?: number
  /** More `[pgbouncer]` settings, `key = value` each. */
  settings?: Readonly<Record<string, string | number>>
}

export type PgBouncer = {
  port: number
  poolMode: PgBouncerPoolMode
  /** postgres:// URL of `database` (default `postgres`) through this PgBouncer. */
  url(database?: string): string
  /** The last lines PgBouncer logged (its stderr). */
  log(): string
  /** Stops PgBouncer (SIGINT: immediate shutdown) and removes its config directory. */
  stop(): Promise<void>
}

/** The path of Debian's pgbouncer binary, or undefined when it is not installed (`apt-get install -y pgbouncer`). */
export function findPgBouncer(): string | undefined {
  return findTool('pgbouncer')
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** The `pgbouncer.ini` for these options (trust auth, the `postgres` user, every database passed through). */
function renderPgBouncerConfig(options: PgBouncerOptions, paths: { port: number; authFile: string }): string {
  const upstream = options.upstream ?? { port: 5432 }
  const settings: Record<string, string | number> = {
    listen_addr: '127.0.0.1',
    listen_port: paths.port,
    unix_socket_dir: '',
    auth_type: 'trust',
    auth_file: paths.authFile,
    admin_users: 'postgres',
    pool_mode: options.poolMode,
    default_pool_size: options.poolSize ?? 10,
    max_client_conn: 1000,
    ignore_startup_parameters: (options.ignoreStartupParameters ?? []).join(','),
    ...options.settings,
  }
  return [
    '[databases]',
    `* = host=${upstream.host ?? '127.0.0.1'} port=${upstream.port}`,
    '[pgbouncer]',
    ...Object.entries(settings).map(([key, value]) => `${key} = ${value}`),
    '',
  ].join('\n')
}

/** Starts Debian's pgbouncer on 127.0.0.1 and a free port; resolves once it accepts connections. */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const binary = findPgBouncer()
  if (binary === undefined) throw new Error('pgbouncer not found: install it with `apt-get install -y pgbouncer`')
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'uncle-rpc-pgbouncer-'))
  const authFile = join(dir, 'userlist.txt')
  const configFile = join(dir, 'pgbouncer.ini')
  writeFileSync(authFile, '"postgres" ""\n')
  writeFileSync(configFile, renderPgBouncerConfig(options, { port, authFile }))
  const { uid, gid } = runAs()
  if (uid !== undefined && gid !== undefined) for (const path of [dir, authFile, configFile]) chownSync(path, uid, gid)

  let log = ''
  const child: ChildProcess = spawn(binary, [configFile], { ...runAs(), stdio: ['ignore', 'pipe', 'pipe'], cwd: tmpdir() })
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-8000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const running = () => child.exitCode === null && child.signalCode === null
  const stop = async () => {
    if (running()) {
      child.kill('SIGINT')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }

  const deadline = Date.now() + 15_000
  while (!(await accepts(port))) {
    if (!running() || Date.now() > deadline) {
      await stop()
      throw new Error(`pgbouncer on port ${port} did not start: ${log.slice(-1000)}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    port,
    poolMode: options.poolMode,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    log: () => log,
    stop,
  }
}
