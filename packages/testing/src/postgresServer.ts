import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

// Private PostgreSQL servers for tests that stop, kill or replicate a database: the test's own
// processes on their own ports and data directories, never the shared server on 5432.

export type PostgresServer = {
  port: number
  dataDir: string
  /** postgres:// URL of `database` (default `postgres`) on this server. */
  url(database?: string): string
  /** Stops the server (`fast` shutdown by SIGINT; SIGKILL to crash it) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>
  /** Starts it again on the same port and data directory. */
  restart(): Promise<void>
  /** Stops it if running and removes its data directory. */
  remove(): Promise<void>
  /**
   * Freezes the server (SIGSTOP of the postmaster and every process it forked: backends of open
   * connections included), so it hangs as a stalled host would: connections stay open, nothing answers.
   */
  freeze(): void
  /** Resumes a frozen server (SIGCONT, backends first). */
  thaw(): void
  /** Promotes a streaming replica to a primary (`pg_ctl promote`, waiting until it accepts writes). */
  promote(): Promise<void>
}

/** Process ids of the children of `pid` (from /proc: the postmaster's backends and workers). */
export function childrenOf(pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // Note: the command name (field 2) may hold spaces; the fields after its ')' are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid) children.push(Number(entry))
    } catch {
      // Note: the process exited while the list was read.
    }
  }
  return children
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids)
    try {
      process.kill(pid, signal)
    } catch {
      // Note: a backend that exited meanwhile needs no signal.
    }
}

function binDir(): string {
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim()
  } catch {
    // Note: Debian keeps the server binaries out of PATH, one folder per major version.
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    return `/usr/lib/postgresql/${versions[0]}/bin`
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

// Note: PostgreSQL (and PgBouncer) refuse to run as root; as root the test runs them as the `postgres` user.
/** The uid/gid to spawn a server as: the `postgres` user when this process is root, else our own. */
export function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {}
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }))
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }))
  return { uid, gid }
}

// Note: asynchronous, so a TCP proxy, an HTTP check or a load generator in the same process keeps
// running while a promotion or a base backup takes its seconds.
async function run(command: string, args: string[]): Promise<void> {
  await promisify(execFile)(join(binDir(), command), args, { ...runAs(), cwd: tmpdir() })
}

async function waitReady(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postgres on port ${port} exited: ${log()}`)
    try {
      execFileSync(join(binDir(), 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'])
      return
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  throw new Error(`postgres on port ${port} did not become ready: ${log()}`)
}

function serve(dataDir: string, port: number, password?: string): Promise<PostgresServer> {
  let child: ChildProcess
  let log = ''
  const start = async () => {
    log = ''
    child = spawn(
      join(binDir(), 'postgres'),
      ['-D', dataDir, '-p', String(port), '-k', dataDir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
      { ...runAs(), stdio: ['ignore', 'ignore', 'pipe'], cwd: tmpdir() },
    )
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000)
    })
    await waitReady(port, child, () => log)
  }
  let frozen = false
  const thaw = () => {
    if (!frozen || child.pid === undefined) return
    frozen = false
    signalAll(childrenOf(child.pid), 'SIGCONT')
    signalAll([child.pid], 'SIGCONT')
  }
  const stop = async (signal: NodeJS.Signals = 'SIGINT') => {
    if (child.exitCode !== null || child.signalCode !== null) return
    thaw()
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill(signal)
    await exited
  }
  return start().then(() => ({
    port,
    dataDir,
    url: (database = 'postgres') => `postgres://postgres${password === undefined ? '' : `:${encodeURIComponent(password)}`}@127.0.0.1:${port}/${database}`,
    stop,
    restart: start,
    freeze() {
      if (frozen || child.pid === undefined) return
      frozen = true
      // Note: the postmaster first, so it forks nothing new while its children are stopped.
      signalAll([child.pid], 'SIGSTOP')
      signalAll(childrenOf(child.pid), 'SIGSTOP')
    },
    thaw,
    async promote() {
      await run('pg_ctl', ['promote', '-w', '-t', '60', '-D', dataDir])
    },
    async remove() {
      await stop('SIGINT')
      rmSync(dataDir, { recursive: true, force: true })
    },
  }))
}

function newDataDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `uncle-rpc-pg-${label}-`))
  const { uid, gid } = runAs()
  if (uid !== undefined && gid !== undefined) chownSync(dir, uid, gid)
  return dir
}

/**
 * A new PostgreSQL server (initdb, replication allowed from 127.0.0.1) on a free port: trust auth, or
 * with `password`, scram-sha-256 for user postgres as docker's postgres image sets it up (its url() carries the password).
 */
export async function startPostgresServer(options: { password?: string } = {}): Promise<PostgresServer> {
  const dataDir = newDataDir('primary')
  if (options.password === undefined) await run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync'])
  else {
    const pwfile = join(dataDir, '..', `${dataDir.split('/').pop()}.pw`)
    writeFileSync(pwfile, `${options.password}\n`, { mode: 0o644 })
    try {
      await run('initdb', ['-D', dataDir, '-A', 'scram-sha-256', '--pwfile', pwfile, '-U', 'postgres', '--no-sync'])
    } finally {
      rmSync(pwfile, { force: true })
    }
  }
  return serve(dataDir, await freePort(), options.password)
}

/** A streaming replica of `primary` (pg_basebackup -R) on its own port, in hot-standby mode. */
export async function startStreamingReplica(primary: PostgresServer): Promise<PostgresServer> {
  const dataDir = newDataDir('replica')
  await run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', dataDir, '-R', '-X', 'stream', '-c', 'fast'])
  if (!existsSync(join(dataDir, 'standby.signal'))) throw new Error('pg_basebackup -R wrote no standby.signal')
  return serve(dataDir, await freePort())
}
